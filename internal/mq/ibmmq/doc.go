//go:build ibmmq

// Package ibmmq is the mq port's IBM MQ backend: it connects to
// queue managers as an MQ client through github.com/ibm-messaging/mq-golang
// and maps the port's calls onto the MQI one for one.
//
// It owns the translation between the port and the MQI: client connection
// parameters (MQCNO, MQCD, MQSCO, MQCSP), open options, the MQMD fields the
// port exposes, message properties carried in message handles, get options
// (wait, selection, browse, syncpoint), queue and queue-manager inquiries,
// and the conversion of every MQI failure into *mq.Error.
//
// The package builds only with the ibmmq build tag and cgo, against IBM's
// client (headers in /opt/mqm/inc, libmqm_r in /opt/mqm/lib64) or the
// project's client stub (internal/mqsim/clientlib, scripts/build-mqstub.sh).
package ibmmq
