// Every status an API route can answer is declared in its response schema, so the OpenAPI document
// (GET /api/openapi.json) lists them all. Routes declare what their own code answers (200, 304, 401
// for a wrong code, 429, ...); the statuses the framework answers for any route of a kind are added
// here, in one place, when the route is registered:
//   500 503       every route (an unexpected failure; the server is shutting down);
//   400           a route that reads a body, query string or path parameters (input that fails its
//                 schema, a number that is not finite, a bad percent-encoding);
//   400 413 415   a method whose body Fastify reads (POST, PUT, PATCH, DELETE, OPTIONS): malformed
//                 JSON, a body over the size limit, a content type other than JSON;
//   414           a path with parameters: a value over the router's parameter length;
//   401           every route of the signed-in scope, which declares the bearer scheme itself
//                 (`requireBearer`), so no route there can leave it out of the document.
import type { FastifySchema, RouteOptions } from 'fastify'
import type { TSchema } from 'typebox'
import { ErrorBody } from '../contract/api.ts'

const bodyMethods = new Set(['POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'])

const descriptions: Record<number, string> = {
  400: 'Bad input: a field that fails its schema, malformed JSON or a bad percent-encoding',
  401: 'Not signed in: no bearer token, or one that is not valid',
  413: 'Body over 16 KiB',
  414: 'Path parameter too long',
  415: 'Body that is not JSON',
  500: 'Unexpected server failure',
  503: 'The server is shutting down: try again (another instance, or in a moment)',
}

interface RouteSchema {
  body?: unknown
  querystring?: unknown
  params?: unknown
  headers?: unknown
  security?: unknown[]
  hide?: boolean
  response?: Record<string, TSchema>
}

export function declareCommonStatuses(route: RouteOptions) {
  if (!route.url.startsWith('/api/')) return
  const schema = (route.schema ?? {}) as RouteSchema
  if (schema.hide) return
  const methods = [route.method].flat()
  const statuses = [500, 503]
  if (schema.body || schema.querystring || schema.params || schema.headers) statuses.push(400)
  if (methods.some((method) => bodyMethods.has(method))) statuses.push(400, 413, 415)
  if (route.url.includes('/:')) statuses.push(414)
  const response = { ...schema.response }
  for (const status of statuses) response[status] ??= { ...ErrorBody, description: descriptions[status] }
  route.schema = { ...schema, response } as FastifySchema
}

/**
 * The signed-in scope's onRoute hook: every route registered there asks for a bearer token (the scope's
 * onRequest hook refuses a request without a valid one with 401), so its schema gets the bearer scheme
 * and the 401, whatever the route itself declares.
 */
export function requireBearer(route: RouteOptions) {
  const schema = (route.schema ?? {}) as RouteSchema
  const response = { ...schema.response }
  response[401] ??= { ...ErrorBody, description: descriptions[401] }
  route.schema = { ...schema, security: [{ bearer: [] }], response } as FastifySchema
}
