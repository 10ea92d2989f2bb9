//go:build ibmmq

package ibmmq

import (
	"errors"
	"fmt"
	"slices"

	mqi "github.com/ibm-messaging/mq-golang/v5/ibmmq"

	"github.com/mqprobe/mqprobe/internal/mq"
)

// anyProperty is the MQINQMP name pattern that matches every property.
const anyProperty = "%"

// propertyHandle is a message handle (MQCRTMH) that a queue handle keeps
// for its life, so that properties do not cost a handle per message. One
// carries the properties of puts, another receives those of gets.
//
// A message handle keeps its properties across MQPUTs that name it as
// OriginalMsgHandle: MQPUT reads them, it does not clear them. So a put
// calls MQSETMP and MQDLTMP only for what differs from the previous put's
// properties, and a loop whose properties do not change (a PRODUCE's trace
// context and headers) calls neither.
type propertyHandle struct {
	qm       *mqi.MQQueueManager
	queue    string // for errors
	handle   mqi.MQMessageHandle
	onHandle mq.Properties // what the puts so far left on handle, byte values copied

	// Option structures reused from call to call.
	smpo *mqi.MQSMPO
	impo *mqi.MQIMPO
	dmpo *mqi.MQDMPO
	pd   *mqi.MQPD
}

func newPropertyHandle(qm *mqi.MQQueueManager, queue string) *propertyHandle {
	return &propertyHandle{
		qm: qm, queue: queue,
		smpo: mqi.NewMQSMPO(), impo: mqi.NewMQIMPO(), dmpo: mqi.NewMQDMPO(), pd: mqi.NewMQPD(),
	}
}

// get returns the handle, creating it on first use.
func (p *propertyHandle) get() (mqi.MQMessageHandle, error) {
	if mqi.IsUsableHandle(p.handle) {
		return p.handle, nil
	}
	h, err := p.qm.CrtMH(mqi.NewMQCMHO())
	if err != nil {
		return mqi.MQMessageHandle{}, mqError(verbCreateMsgHandle, p.queue, err)
	}
	p.handle = h
	clear(p.onHandle)
	return h, nil
}

// set makes props the handle's properties for a put: it validates and sets
// (MQSETMP) those that differ from what the handle holds, and deletes
// (MQDLTMP) those props lacks. An invalid property changes nothing. On a
// failed call the handle is deleted, so the next put starts from an empty
// one.
func (p *propertyHandle) set(props mq.Properties) (mqi.MQMessageHandle, error) {
	h, err := p.get()
	if err != nil {
		return h, err
	}
	if p.holdsAll(props) {
		return h, nil // the usual put of a loop: one pass, no MQI call
	}
	for name, value := range props {
		if !p.holds(name, value) {
			if err := mq.ValidateProperty(name, value); err != nil {
				return h, err
			}
		}
	}
	for name := range p.onHandle {
		if _, keep := props[name]; keep {
			continue
		}
		if err := h.DltMP(p.dmpo, name); err != nil {
			return h, errors.Join(p.propertyError(verbDeleteProp, name, err), p.release())
		}
		delete(p.onHandle, name)
	}
	for name, value := range props {
		if p.holds(name, value) {
			continue
		}
		if err := h.SetMP(p.smpo, name, p.pd, value); err != nil {
			return h, errors.Join(p.propertyError(mq.VerbSetProp, name, err), p.release())
		}
		if b, ok := value.([]byte); ok {
			value = slices.Clone(b) // the caller may write into its slice
		}
		if p.onHandle == nil {
			p.onHandle = make(mq.Properties, len(props))
		}
		p.onHandle[name] = value
	}
	return h, nil
}

// holdsAll reports whether the handle has exactly props.
func (p *propertyHandle) holdsAll(props mq.Properties) bool {
	if len(props) != len(p.onHandle) {
		return false
	}
	for name, value := range props {
		if !p.holds(name, value) {
			return false
		}
	}
	return true
}

// holds reports whether the handle has property name with value.
func (p *propertyHandle) holds(name string, value any) bool {
	v, ok := p.onHandle[name]
	return ok && mq.SamePropertyValue(v, value)
}

// propertyError names the property a failed call was about.
func (p *propertyHandle) propertyError(verb mq.Verb, name string, err error) *mq.Error {
	e := mqError(verb, p.queue, err)
	if e.Err == nil {
		e.Err = fmt.Errorf("property %q", name)
	}
	return e
}

// read replaces dst's contents with the handle's properties after a get,
// walking them with MQINQMP. dst is allocated only when it is nil and there
// are properties.
func (p *propertyHandle) read(dst mq.Properties) (mq.Properties, error) {
	clear(dst)
	p.impo.Options = mqi.MQIMPO_INQ_FIRST
	for {
		name, value, err := p.handle.InqMP(p.impo, p.pd, anyProperty)
		if reasonOf(err) == mqi.MQRC_PROPERTY_NOT_AVAILABLE {
			return dst, nil
		}
		if err != nil {
			return dst, mqError(verbInquireProp, p.queue, err)
		}
		p.impo.Options = mqi.MQIMPO_INQ_NEXT
		if dst == nil {
			dst = make(mq.Properties)
		}
		// The binding returns each MQTYPE as the Go type the port uses for
		// it (nil for MQTYPE_NULL), so the value is kept as it was put.
		dst[name] = value
	}
}

// release deletes the handle (MQDLTMH), if there is one.
func (p *propertyHandle) release() error {
	if !mqi.IsUsableHandle(p.handle) {
		return nil
	}
	err := p.handle.DltMH(mqi.NewMQDMHO())
	p.handle = mqi.MQMessageHandle{}
	clear(p.onHandle)
	if err != nil {
		return mqError(verbDeleteMsgHandle, p.queue, err)
	}
	return nil
}
