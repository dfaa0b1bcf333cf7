// Serves the built web app from WEB_DIR and the store and profile pictures from IMAGE_DIR. Any other
// path that names no file gets index.html, so the client router can answer /login and /.
import { existsSync, mkdirSync } from 'node:fs'
import path from 'node:path'
import fastifyStatic from '@fastify/static'
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { messages } from './errors.ts'

export interface WebOptions {
  webDir: string
  imageDir: string
}

/** Hashed build output can be cached for good; everything else must be revalidated. */
function cacheControl(filePath: string) {
  return filePath.includes(`${path.sep}assets${path.sep}`)
    ? 'public, max-age=31536000, immutable'
    : 'no-cache'
}

/**
 * A day in the browser's cache for pictures, but uploaded ones (a user's face, a store's front: anything
 * outside demo/) only in the browser's own (`private`), never in a shared cache, which would keep one
 * past the logout's Clear-Site-Data. The demo's pictures are the same for everyone.
 */
function pictureCacheControl(imageDir: string, filePath: string) {
  const relative = path.relative(imageDir, filePath)
  return relative.startsWith(`demo${path.sep}`) ? 'public, max-age=86400' : 'private, max-age=86400'
}

const looksLikeFile = (url: string) => /\.[a-z0-9]+$/i.test(url.split('?')[0] ?? '')

/** `/api` and `/images` themselves and everything below them answer JSON, never the app's page. */
const isServerPath = (url: string) => /^\/(?:api|images)(?:[/?#]|$)/.test(url)

export const web = fp(async (app: FastifyInstance, { webDir, imageDir }: WebOptions) => {
  const hasWebApp = existsSync(path.join(webDir, 'index.html'))
  mkdirSync(imageDir, { recursive: true })
  if (hasWebApp) {
    await app.register(fastifyStatic, {
      root: webDir,
      preCompressed: true,
      cacheControl: false,
      dotfiles: 'ignore',
      setHeaders: (reply, filePath) => reply.header('cache-control', cacheControl(filePath)),
    })
  } else {
    app.log.warn(`No web app in ${webDir}: run \`npm run build\` (the API still works).`)
  }
  await app.register(fastifyStatic, {
    root: imageDir,
    prefix: '/images/',
    decorateReply: !hasWebApp,
    dotfiles: 'ignore',
    cacheControl: false,
    setHeaders: (reply, filePath) => reply.header('cache-control', pictureCacheControl(imageDir, filePath)),
  })

  app.setNotFoundHandler((request, reply) => {
    const isPage =
      (request.method === 'GET' || request.method === 'HEAD') &&
      !isServerPath(request.url) &&
      !looksLikeFile(request.url)
    if (hasWebApp && isPage) {
      return reply
        .header('cache-control', 'no-cache')
        .type('text/html; charset=utf-8')
        .sendFile('index.html', webDir)
    }
    return reply.code(404).send({ message: messages.notFound })
  })
})
