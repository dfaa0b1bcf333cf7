// How Fastify is made: the protocol (HTTPS and HTTP/2 with a certificate), the request log without
// secrets, which proxies to believe, the body limit, the validator and the framework's own refusals.

import type { Config } from './config.ts'
import { handleClientError, handleError, serializeError } from './errors.ts'
import { buildValidator } from './validation.ts'

/**
 * Fastify's form of TRUST_PROXY. A hop count becomes a function of the hop (0 is the socket's peer):
 * Fastify's own number form trusts no hop at all, and `true` trusts every hop, so that any client
 * could name its own address in X-Forwarded-For.
 */
function fastifyTrustProxy(trust: Config['trustProxy']) {
  if (!trust) return false
  if ('hops' in trust) return (_address: string, hop: number) => hop < trust.hops
  return trust.addresses
}

/** Query parameters whose values may be written to logs: none of them is a secret. */
const loggableParams = new Set(['year'])

function decodedName(name: string) {
  try {
    return decodeURIComponent(name.replaceAll('+', ' '))
  } catch {
    return undefined
  }
}

/**
 * The address as request logs show it. Logs must never hold a refresh token, which the contract puts
 * in the query string, and the query parser decodes names (`?%74oken=` is `token`) and also starts a
 * query at `#`. So the query starts at the first `?` or `#`, and every value is replaced unless its
 * decoded name is one known to be harmless; a bare name that is not known is replaced whole.
 */
export function redactUrl(url: string) {
  const start = url.search(/[?#]/)
  if (start < 0) return url
  const pairs = url
    .slice(start + 1)
    .split('&')
    .map((pair) => {
      const equals = pair.indexOf('=')
      const name = equals < 0 ? pair : pair.slice(0, equals)
      if (loggableParams.has(decodedName(name) ?? '')) return pair
      return equals < 0 ? (pair === '' ? '' : '[redacted]') : `${name}=[redacted]`
    })
  return `${url.slice(0, start + 1)}${pairs.join('&')}`
}

export function serverOptions(config: Config, logStream?: { write(line: string): void }) {
  // With a certificate (TLS_CERT_FILE, TLS_KEY_FILE): HTTPS, HTTP/2 where the client speaks it (every
  // browser does) and HTTP/1.1 otherwise. HTTP/2 compresses the headers an open screen repeats every
  // 25 s (docs/product.md decision 100). Typed as the HTTP/1.1 server: the routes see the same
  // request and reply either way, and what differs (connection headers, closing) is handled in
  // plugins/connections.ts.
  const protocol = config.tls
    ? ({ http2: true, https: { ...config.tls, allowHTTP1: true } } as unknown as Record<string, never>)
    : {}
  return {
    ...protocol,
    logger: {
      level: config.logLevel,
      ...(logStream ? { stream: logStream } : {}),
      serializers: {
        err: serializeError,
        req: (request: { method: string; url: string; ip: string }) => ({
          method: request.method,
          url: redactUrl(request.url),
          remoteAddress: request.ip,
        }),
      },
    },
    trustProxy: fastifyTrustProxy(config.trustProxy),
    bodyLimit: 16 * 1024,
    schemaController: { compilersFactory: { buildValidator } },
    // A bad percent-encoding or an over-long path parameter, found before any route runs.
    frameworkErrors: handleError,
    // The HTTP parser's own refusals (malformed request line, headers too large).
    clientErrorHandler: handleClientError,
    // Fastify's own answer while closing is an English body; plugins/connections.ts gives the contract's.
    return503OnClosing: false,
    // Node answers an HTTP/1.1 request without Host with a bare 400; plugins/connections.ts answers it instead.
    http: { requireHostHeader: false },
  }
}
