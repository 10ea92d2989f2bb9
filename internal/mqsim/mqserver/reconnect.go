package mqserver

// opReopen is REOPEN (PROTOCOL.md): MQOPEN under a handle the client names,
// so a client reconnecting after a lost connection (MQCNO_RECONNECT)
// reinstates its object handles with the numbers the application holds.
const opReopen uint16 = 16

// firstHobj is the first object handle of a connection.
const firstHobj int32 = 101

// reopen is REOPEN: i32 hobj, then OPEN's request; OPEN's reply. A handle
// the connection has open already, or one below firstHobj, fails
// MQRC_HOBJ_ERROR (2019); later OPENs never reuse hobj.
func (s *session) reopen(d *decoder) (cc, rc int32, err error) {
	hobj := d.i32()
	if _, taken := s.objects[hobj]; taken || hobj < firstHobj {
		s.out.i32(-1) // MQHO_UNUSABLE_HOBJ
		s.out.str("")
		s.out.str("")
		return ccFailed, rcHobjError, nil
	}
	next := s.nextHobj
	s.nextHobj = hobj
	cc, rc, err = s.open(d)
	s.nextHobj = max(next, hobj+1)
	return cc, rc, err
}
