// A self-signed certificate for 127.0.0.1 (P-256, one day), made by openssl into `dir`: the HTTPS
// server's tests, the local push service that stands in for a browser vendor's, and the bench's HTTP/2
// run all use this one.
import { execFileSync } from 'node:child_process'
import path from 'node:path'

export function selfSignedCertificate(dir: string): { certFile: string; keyFile: string } {
  const certFile = path.join(dir, 'cert.pem')
  const keyFile = path.join(dir, 'key.pem')
  execFileSync(
    'openssl',
    [
      ...['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '1'],
      ...['-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'],
      ...['-keyout', keyFile, '-out', certFile],
    ],
    { stdio: 'ignore' },
  )
  return { certFile, keyFile }
}
