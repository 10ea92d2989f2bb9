package mqserver

import (
	"encoding/binary"
	"slices"
	"strings"
)

// PCF (Programmable Command Format) messages as cmqcfc.h lays them out:
// an MQCFH header and its parameters, integers in the message's encoding.

// PCF structure types (MQCFT_*), controls (MQCFC_*) and lengths.
const (
	cftCommand       int32 = 1
	cftResponse      int32 = 2
	cftInteger       int32 = 3
	cftString        int32 = 4
	cftIntegerList   int32 = 5
	cftStringList    int32 = 6
	cftCommandXR     int32 = 16
	cfcLast          int32 = 1
	cfcNotLast       int32 = 0
	cfhLength              = 36 // MQCFH_STRUC_LENGTH
	cfinLength             = 16 // MQCFIN_STRUC_LENGTH
	cfstFixedLength        = 20 // MQCFST_STRUC_LENGTH_FIXED
	cfilFixedLength        = 16 // MQCFIL_STRUC_LENGTH_FIXED
	cfslFixedLength        = 24 // MQCFSL_STRUC_LENGTH_FIXED
	cfhVersionMin          = 1
	cfhVersionMax          = 3
	encIntegerNormal int32 = 1 // MQENC_INTEGER_NORMAL: big-endian integers
	encIntegerMask   int32 = 0xf
)

// PCF reason codes (MQRCCF_*).
const (
	rccfCFHTypeError       int32 = 3001
	rccfCFHLengthError     int32 = 3002
	rccfCFHVersionError    int32 = 3003
	rccfCFHControlError    int32 = 3005
	rccfCFHParmCountError  int32 = 3006
	rccfCFHCommandError    int32 = 3007
	rccfCFINLengthError    int32 = 3009
	rccfCFSTLengthError    int32 = 3010
	rccfStructureTypeError int32 = 3013
	rccfCFINDuplicateParm  int32 = 3017
	rccfCFSTDuplicateParm  int32 = 3018
	rccfParmCountTooSmall  int32 = 3019
	rccfQTypeError         int32 = 3022
	rccfMDFormatError      int32 = 3023
	rccfCFSLLengthError    int32 = 3024
	rccfCFILLengthError    int32 = 3028
	rccfChlStatusNotFound  int32 = 3065
	rccfParmValueError     int32 = 3229
	rccfChannelNotFound    int32 = 4032
)

// pcfParam is one parameter of a command: an MQCFIN or MQCFIL (ints) or
// an MQCFST or MQCFSL (strs, blanks trimmed).
type pcfParam struct {
	typ  int32
	ints []int32
	strs []string
}

// pcfCommand is a parsed command message.
type pcfCommand struct {
	command int32
	params  map[int32]pcfParam
}

func (c *pcfCommand) str(id int32) (string, bool) {
	p, ok := c.params[id]
	if !ok || p.typ != cftString {
		return "", false
	}
	return p.strs[0], true
}

func (c *pcfCommand) integer(id int32) (int32, bool) {
	p, ok := c.params[id]
	if !ok || p.typ != cftInteger {
		return 0, false
	}
	return p.ints[0], true
}

// attrs is an MQCFIL of attribute selectors: nil (all) when absent or
// when it holds MQIACF_ALL.
func (c *pcfCommand) attrs(id int32) map[int32]bool {
	p, ok := c.params[id]
	if !ok || p.typ != cftIntegerList || slices.Contains(p.ints, iacfAll) {
		return nil
	}
	want := make(map[int32]bool, len(p.ints))
	for _, v := range p.ints {
		want[v] = true
	}
	return want
}

// pcfOrder is the byte order of a message's integers.
type pcfOrder interface {
	binary.ByteOrder
	binary.AppendByteOrder
}

// byteOrder is the integer encoding of a message whose MQMD Encoding is enc.
func byteOrder(enc int32) pcfOrder {
	if enc&encIntegerMask == encIntegerNormal {
		return binary.BigEndian
	}
	return binary.LittleEndian
}

// parsePCF reads a command message; a reason (MQRCCF_*) says why it is
// not one, and command is then what the header named, if it was read.
func parsePCF(data []byte, order binary.ByteOrder) (pcfCommand, int32) {
	if len(data) < cfhLength {
		return pcfCommand{}, rccfCFHLengthError
	}
	word := func(off int) int32 { return int32(order.Uint32(data[off:])) }
	cmd := pcfCommand{command: word(12), params: map[int32]pcfParam{}}
	switch typ, version, control, count := word(0), word(8), word(20), word(32); {
	case typ != cftCommand && typ != cftCommandXR:
		return cmd, rccfCFHTypeError
	case word(4) != cfhLength:
		return cmd, rccfCFHLengthError
	case version < cfhVersionMin || version > cfhVersionMax:
		return cmd, rccfCFHVersionError
	case control != cfcLast && control != cfcNotLast:
		return cmd, rccfCFHControlError
	case count < 0:
		return cmd, rccfCFHParmCountError
	}
	rest := data[cfhLength:]
	for range word(32) {
		if len(rest) < 8 {
			return cmd, rccfCFHParmCountError
		}
		typ, length := int32(order.Uint32(rest)), int(order.Uint32(rest[4:]))
		if length < 8 || length > len(rest) || length%4 != 0 {
			return cmd, lengthError(typ)
		}
		p, id, rc := parseParam(rest[:length], typ, order)
		if rc != rcNone {
			return cmd, rc
		}
		if _, dup := cmd.params[id]; dup {
			if typ == cftString || typ == cftStringList {
				return cmd, rccfCFSTDuplicateParm
			}
			return cmd, rccfCFINDuplicateParm
		}
		cmd.params[id] = p
		rest = rest[length:]
	}
	return cmd, rcNone
}

// lengthError is the reason for a parameter of type typ with a bad length.
func lengthError(typ int32) int32 {
	switch typ {
	case cftInteger:
		return rccfCFINLengthError
	case cftString:
		return rccfCFSTLengthError
	case cftIntegerList:
		return rccfCFILLengthError
	case cftStringList:
		return rccfCFSLLengthError
	}
	return rccfStructureTypeError
}

// parseParam reads one parameter structure b of type typ.
func parseParam(b []byte, typ int32, order binary.ByteOrder) (pcfParam, int32, int32) {
	word := func(off int) int32 { return int32(order.Uint32(b[off:])) }
	p := pcfParam{typ: typ}
	switch typ {
	case cftInteger:
		if len(b) != cfinLength {
			return p, 0, rccfCFINLengthError
		}
		p.ints = []int32{word(12)}
	case cftIntegerList:
		if len(b) < cfilFixedLength || int(word(12)) < 0 || len(b) != cfilFixedLength+4*int(word(12)) {
			return p, 0, rccfCFILLengthError
		}
		for i := range int(word(12)) {
			p.ints = append(p.ints, word(cfilFixedLength+4*i))
		}
	case cftString:
		if len(b) < cfstFixedLength || word(16) < 0 || cfstFixedLength+int(word(16)) > len(b) {
			return p, 0, rccfCFSTLengthError
		}
		p.strs = []string{trimmed(b[cfstFixedLength : cfstFixedLength+int(word(16))])}
	case cftStringList:
		n, each := int(word(16)), int(word(20))
		if len(b) < cfslFixedLength || n < 0 || each < 0 || cfslFixedLength+n*each > len(b) {
			return p, 0, rccfCFSLLengthError
		}
		for i := range n {
			off := cfslFixedLength + i*each
			p.strs = append(p.strs, trimmed(b[off:off+each]))
		}
	default:
		// Filters (MQCFIF, MQCFSF), byte strings and 64-bit integers are
		// not taken by the commands served here.
		return p, 0, rccfStructureTypeError
	}
	return p, word(8), rcNone
}

// pcfResponse is one response message's parameters, encoded when the
// message is (in the command's byte order).
type pcfResponse struct{ params []pcfItem }

// pcfItem is an MQCFIN (one int), MQCFIL (ints), MQCFST (one str) or
// MQCFSL (strs), strings blank-padded to length.
type pcfItem struct {
	typ, id int32
	ints    []int32
	strs    []string
	length  int
}

// integer adds an MQCFIN.
func (r *pcfResponse) integer(id, v int32) {
	r.params = append(r.params, pcfItem{typ: cftInteger, id: id, ints: []int32{v}})
}

// integers adds an MQCFIL.
func (r *pcfResponse) integers(id int32, vs []int32) {
	r.params = append(r.params, pcfItem{typ: cftIntegerList, id: id, ints: vs})
}

// str adds an MQCFST of s blank-padded to length, the attribute's MQ
// length, as IBM's command server returns them.
func (r *pcfResponse) str(id int32, s string, length int) {
	r.params = append(r.params, pcfItem{typ: cftString, id: id, strs: []string{s}, length: length})
}

// strs adds an MQCFSL, each string blank-padded to length.
func (r *pcfResponse) strs(id int32, ss []string, length int) {
	r.params = append(r.params, pcfItem{typ: cftStringList, id: id, strs: ss, length: length})
}

// keep drops the parameters neither in want nor always; nil want keeps
// them all.
func (r *pcfResponse) keep(want map[int32]bool, always ...int32) {
	if want == nil {
		return
	}
	r.params = slices.DeleteFunc(r.params, func(p pcfItem) bool { return !want[p.id] && !slices.Contains(always, p.id) })
}

// message encodes the response with its MQCFH: command, control, and the
// completion and reason codes.
func (r *pcfResponse) message(order binary.AppendByteOrder, command, control, cc, rc int32) []byte {
	var out []byte
	word := func(v int32) { out = order.AppendUint32(out, uint32(v)) }
	for _, v := range []int32{cftResponse, cfhLength, cfhVersionMin, command, 1, control, cc, rc, int32(len(r.params))} {
		word(v)
	}
	for _, p := range r.params {
		switch p.typ {
		case cftInteger:
			word(cftInteger)
			word(cfinLength)
			word(p.id)
			word(p.ints[0])
		case cftIntegerList:
			word(cftIntegerList)
			word(int32(cfilFixedLength + 4*len(p.ints)))
			word(p.id)
			word(int32(len(p.ints)))
			for _, v := range p.ints {
				word(v)
			}
		case cftString:
			padded := (p.length + 3) &^ 3
			word(cftString)
			word(int32(cfstFixedLength + padded))
			word(p.id)
			word(qmgrCCSID)
			word(int32(p.length))
			out = append(out, blankPadded(p.strs[0], padded)...)
		case cftStringList:
			total := len(p.strs) * p.length
			padded := (total + 3) &^ 3
			word(cftStringList)
			word(int32(cfslFixedLength + padded))
			word(p.id)
			word(qmgrCCSID)
			word(int32(len(p.strs)))
			word(int32(p.length))
			for _, s := range p.strs {
				out = append(out, blankPadded(s, p.length)...)
			}
			out = append(out, strings.Repeat(" ", padded-total)...)
		}
	}
	return out
}

func blankPadded(s string, length int) []byte {
	b := make([]byte, length)
	fixed(b, s)
	return b
}

// matchName reports whether name matches a PCF object name: exact, or a
// generic name ending in '*' ("*" alone matches every name).
func matchName(pattern, name string) bool {
	if prefix, generic := strings.CutSuffix(pattern, "*"); generic {
		return strings.HasPrefix(name, prefix)
	}
	return pattern == name
}

// isGeneric reports whether a PCF object name is generic.
func isGeneric(pattern string) bool { return strings.HasSuffix(pattern, "*") }
