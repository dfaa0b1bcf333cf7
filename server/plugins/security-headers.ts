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
 * which starts the app) and inline stylesheets (the app's, build/index-html.ts), for the content
 * security policy: the page's own, and no other inline script or style. Read again whenever
 * index.html changes (a new build deployed in place).
 */
function inlineHashes(webDir: string) {
  const file = path.join(webDir, 'index.html')
  let read: { changedAt: number; scripts: string[]; styles: string[] } | undefined
  const hash = (code: string) => `'sha256-${createHash('sha256').update(code).digest('base64')}'`
  const current = () => {
    if (!existsSync(file)) return { scripts: [], styles: [] }
    const changedAt = statSync(file).mtimeMs
    if (read?.changedAt !== changedAt) {
      const html = readFileSync(file, 'utf8')
      const scripts = [...html.matchAll(/<script(\s[^>]*)?>([\s\S]*?)<\/script>/g)]
        .filter(([, attributes]) => !/\ssrc=/.test(attributes ?? ''))
        .map(([, , code]) => hash(code ?? ''))
      const styles = [...html.matchAll(/<style(?:\s[^>]*)?>([\s\S]*?)<\/style>/g)].map(([, css]) =>
        hash(css ?? ''),
      )
      read = { changedAt, scripts, styles }
    }
    return read
  }
  return { scripts: () => current().scripts, styles: () => current().styles }
}

const contentSecurityPolicy = (webDir: string) => {
  const hashes = inlineHashes(webDir)
  return {
    directives: {
      defaultSrc: ["'self'"],
      // The page's hashes where a page may be answered: the API's answers are never run as documents,
      // so its calls (the hot path) look at no file.
      scriptSrc: [
        (request: { url?: string }) =>
          request.url?.startsWith('/api/') ? "'self'" : ["'self'", ...hashes.scripts()].join(' '),
      ],
      styleSrc: [
        (request: { url?: string }) =>
          request.url?.startsWith('/api/') ? "'self'" : ["'self'", ...hashes.styles()].join(' '),
      ],
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
