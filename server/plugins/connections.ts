// The server's rules for connections and requests, before any route: while closing, a request that
// still arrives is told to come back and an answer ends its connection; an HTTP/1.1 request without
// Host is refused in the contract's form.
import type { ServerHttp2Session } from 'node:http2'
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { ApiError, messages } from '../errors.ts'

export const connectionsPlugin = fp(
  async (app: FastifyInstance, { http2 }: { http2: boolean }) => {
    // HTTP/2 sessions, told to end (GOAWAY) at close: a session keeps the server open while it lives,
    // and has no `Connection: close` to end it with its last answer. Its streams still finish.
    const sessions = new Set<ServerHttp2Session>()
    if (http2) {
      app.server.on('session', (session: ServerHttp2Session) => {
        sessions.add(session)
        session.once('close', () => sessions.delete(session))
      })
    }
    // While closing, a request that still arrives (on a kept-alive connection, or pipelined) is told
    // to come back, in the contract's form; Fastify adds `Connection: close`, so it goes elsewhere.
    let closing = false
    app.addHook('preClose', () => {
      closing = true
      // Held changes calls answer now (what they last read), so the server's close does not wait for them.
      app.live.endHeld()
      for (const session of sessions) session.close()
    })
    app.addHook('onRequest', async (_request, reply) => {
      if (closing) reply.code(503).header('retry-after', '1').send({ message: messages.unavailable })
    })
    // An answer sent while closing (a call that was in flight, a held changes call) ends its connection:
    // a kept-alive one would hold the server's close until its idle timeout (72 s). HTTP/2 has no such
    // header (Node refuses it): its sessions are told to end (GOAWAY) above.
    app.addHook('onSend', async (request, reply) => {
      if (closing && request.raw.httpVersionMajor === 1) reply.header('connection', 'close')
    })
    // HTTP/1.1 requires Host (RFC 9112 §3.2): Node's own check, turned off in server-options.ts, answers
    // without a body.
    app.addHook('onRequest', async (request) => {
      const { httpVersionMajor, httpVersionMinor } = request.raw
      if (httpVersionMajor === 1 && httpVersionMinor === 1 && !request.headers.host)
        throw new ApiError(400, messages.badRequest)
    })
  },
  { name: 'connections', dependencies: ['live'] },
)
