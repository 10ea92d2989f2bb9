//go:build ibmmq

package ibmmq

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/mqprobe/mqprobe/internal/mq"
)

// certificateTimeout bounds the handshake that reads the queue manager's
// certificate.
const certificateTimeout = 5 * time.Second

// queueManagerCertificate reads the certificate the queue manager presents
// on channel: IBM's client library keeps it to itself, so this makes a TLS
// handshake of its own to the first endpoint of connName that answers,
// naming the channel by SNI as IBM MQ's clients do (a channel with its own
// CERTLABL presents that certificate). It trusts nothing it reads: the
// client library verified the channel's certificate against the key
// repository; this handshake only reads its names and expiry, and sends no
// MQ data.
func queueManagerCertificate(ctx context.Context, connName, channel string) (mq.Certificate, error) {
	eps, err := mq.ParseConnName(connName)
	if err != nil {
		return mq.Certificate{}, err
	}
	var errs []error
	for _, ep := range eps {
		cert, err := presentedCertificate(ctx, net.JoinHostPort(ep.Host, strconv.Itoa(ep.Port)), sniName(channel))
		if err == nil {
			return mq.Certificate{Subject: cert.Subject.String(), Issuer: cert.Issuer.String(), NotAfter: cert.NotAfter}, nil
		}
		errs = append(errs, err)
	}
	return mq.Certificate{}, errors.Join(errs...)
}

// presentedCertificate is the leaf certificate the server at addr presents
// to a client asking for serverName. It is taken as it arrives, so a
// server that then refuses a client without a certificate of its own
// (SSLCAUTH(REQUIRED)) still shows it.
func presentedCertificate(ctx context.Context, addr, serverName string) (*x509.Certificate, error) {
	ctx, cancel := context.WithTimeout(ctx, certificateTimeout)
	defer cancel()
	var leaf *x509.Certificate
	cfg := &tls.Config{
		ServerName: serverName,
		// Verification is the client library's, on the MQ connection.
		InsecureSkipVerify: true,
		MinVersion:         tls.VersionTLS12,
		VerifyPeerCertificate: func(raw [][]byte, _ [][]*x509.Certificate) error {
			if len(raw) == 0 {
				return errors.New("no certificate presented")
			}
			cert, err := x509.ParseCertificate(raw[0])
			leaf = cert
			return err
		},
	}
	conn, err := (&tls.Dialer{Config: cfg}).DialContext(ctx, "tcp", addr)
	if conn != nil {
		conn.Close()
	}
	if leaf != nil {
		return leaf, nil
	}
	return nil, fmt.Errorf("TLS handshake with %s: %w", addr, err)
}

// sniName is the server name IBM MQ's clients send for channel: upper-case
// letters folded to lower case, digits kept, every other character as its
// two hexadecimal digits and a hyphen, then ".chl.mq.ibm.com" (IBM MQ
// documents this in "How IBM MQ provides multiple certificates capability").
func sniName(channel string) string {
	var b strings.Builder
	for _, r := range []byte(channel) {
		switch {
		case r >= 'A' && r <= 'Z':
			b.WriteByte(r + ('a' - 'A'))
		case r >= '0' && r <= '9':
			b.WriteByte(r)
		default:
			fmt.Fprintf(&b, "%02x-", r)
		}
	}
	return b.String() + ".chl.mq.ibm.com"
}
