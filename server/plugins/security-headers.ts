// The security headers of every answer (@fastify/helmet): the content security policy, with the hashes
// of index.html's inline scripts on what may be a page, and no referrer.
import { createHash } from 'node:crypto'
import { existsSync, readFileSync, statSync } from 'node:fs'
import path from 'node:path'
import helmet from '@fastify/helmet'
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'

/**
 * The hashes of index.html's inline scripts (the first painter, which the build writes into it and
 * which starts the app: build/index-html.ts), for the content security policy: the page's own, and no
 * other inline script. Read again whenever index.html changes (a new build deployed in place).
 */
function inlineScriptHashes(webDir: string) {
  const file = path.join(webDir, 'index.html')
  let read: { changedAt: number; hashes: string[] } | undefined
  const hash = (code: string) => `'sha256-${createHash('sha256').update(code).digest('base64')}'`
  return () => {
    if (!existsSync(file)) return []
    const changedAt = statSync(file).mtimeMs
    if (read?.changedAt !== changedAt) {
      const scripts = readFileSync(file, 'utf8').matchAll(/<script(\s[^>]*)?>([\s\S]*?)<\/script>/g)
      const hashes = [...scripts]
        .filter(([, attributes]) => !/\ssrc=/.test(attributes ?? ''))
        .map(([, , code]) => hash(code ?? ''))
      read = { changedAt, hashes }
    }
    return read.hashes
  }
}

const contentSecurityPolicy = (webDir: string) => {
  const hashes = inlineScriptHashes(webDir)
  return {
    directives: {
      defaultSrc: ["'self'"],
      // The page's hashes where a page may be answered: the API's answers are never run as documents,
      // so its calls (the hot path) look at no file.
      scriptSrc: [
        (request: { url?: string }) =>
          request.url?.startsWith('/api/') ? "'self'" : ["'self'", ...hashes()].join(' '),
      ],
      styleSrc: ["'self'"],
      imgSrc: ["'self'", 'data:', 'blob:'],
      fontSrc: ["'self'"],
      connectSrc: ["'self'"],
      workerSrc: ["'self'", 'blob:'],
      manifestSrc: ["'self'"],
      objectSrc: ["'none'"],
      baseUri: ["'self'"],
      formAction: ["'self'"],
      frameAncestors: ["'none'"],
      // The product is often served over plain http on a shop's own network.
      upgradeInsecureRequests: null,
    },
  }
}

export const securityHeadersPlugin = fp(
  async (app: FastifyInstance, { webDir }: { webDir: string }) => {
    await app.register(helmet, {
      contentSecurityPolicy: contentSecurityPolicy(webDir),
      referrerPolicy: { policy: 'no-referrer' },
    })
  },
  { name: 'security-headers' },
)
