// Checks a real answer against GET /api/openapi.json: the status is declared for the operation, and
// the body is what the document says (JSON matching the declared schema, or empty when none is).
import { brotliDecompressSync, gunzipSync } from 'node:zlib'
import type { InjectOptions, LightMyRequestResponse } from 'fastify'
import { Compile } from 'typebox/compile'
import { beforeAll } from 'vitest'

type JsonSchema = Record<string, unknown>
type InjectFunction = (options: InjectOptions) => Promise<LightMyRequestResponse>

interface Operation {
  parameters?: { name: string; in: string; required?: boolean; schema: JsonSchema }[]
  requestBody?: { content: Record<string, { schema: JsonSchema }> }
  security?: unknown[]
  responses: Record<string, { content?: Record<string, { schema: JsonSchema }> }>
}

export interface OpenApiDocument {
  paths: Record<string, Record<string, Operation>>
}

export interface Answer {
  statusCode: number
  headers: Record<string, string | string[] | number | undefined>
  body: string
}

/** An inject response as the checker reads it, its body decompressed as its Content-Encoding says. */
export function answerOf(response: {
  statusCode: number
  headers: Answer['headers']
  rawPayload: Buffer
}): Answer {
  const encoding = response.headers['content-encoding']
  const bytes =
    encoding === 'br'
      ? brotliDecompressSync(response.rawPayload)
      : encoding === 'gzip'
        ? gunzipSync(response.rawPayload)
        : response.rawPayload
  return { statusCode: response.statusCode, headers: response.headers, body: bytes.toString('utf8') }
}

/** OpenAPI 3.0's `nullable: true` as plain JSON Schema, which the checker reads. */
function plainSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(plainSchema)
  if (!schema || typeof schema !== 'object') return schema
  const { nullable, ...rest } = schema as JsonSchema
  const plain = Object.fromEntries(Object.entries(rest).map(([key, value]) => [key, plainSchema(value)]))
  return nullable ? { anyOf: [plain, { type: 'null' }] } : plain
}

const checkers = new Map<JsonSchema, ReturnType<typeof Compile>>()
function checker(schema: JsonSchema) {
  let compiled = checkers.get(schema)
  if (!compiled) {
    compiled = Compile(plainSchema(schema) as never)
    checkers.set(schema, compiled)
  }
  return compiled
}

export const operations = (document: OpenApiDocument) =>
  Object.entries(document.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, operation]) => ({ path, method: method.toUpperCase(), operation })),
  )

/** What is wrong with `answer` as an answer of `method path`, or an empty list. */
export function problems(document: OpenApiDocument, method: string, path: string, answer: Answer): string[] {
  const operation = document.paths[path]?.[method.toLowerCase()]
  if (!operation) return [`${method} ${path} is not in the document`]
  const declared = operation.responses[String(answer.statusCode)]
  if (!declared) return [`${method} ${path} answered ${answer.statusCode}, which it does not declare`]
  const content = declared.content?.['application/json']
  // A declared text form other than JSON (the tax export's CSV): its type as declared, and a body.
  const mediaType =
    String(answer.headers['content-type'] ?? '')
      .split(';')[0]
      ?.trim() ?? ''
  const text = mediaType !== 'application/json' ? declared.content?.[mediaType] : undefined
  if (text && text.schema.type === 'string')
    return answer.body === '' ? [`${answer.statusCode} ${mediaType} came without a body`] : []
  if (!content) {
    return answer.body === ''
      ? []
      : [`${answer.statusCode} declares no body but got ${answer.body.slice(0, 80)}`]
  }
  const type = String(answer.headers['content-type'] ?? '')
  // A declared binary form (the compact usage answer): its type as declared, and a body.
  const binary = Object.entries(declared.content ?? {}).find(
    ([name, declaredContent]) => name === type && declaredContent.schema.format === 'binary',
  )
  if (binary) return answer.body === '' ? [`${answer.statusCode} ${type} came without a body`] : []
  if (!type.startsWith('application/json'))
    return [`${answer.statusCode} came as ${type || 'no type'}, not JSON`]
  let body: unknown
  try {
    body = JSON.parse(answer.body)
  } catch {
    return [`${answer.statusCode} body is not JSON: ${answer.body.slice(0, 80)}`]
  }
  const found: string[] = []
  if (!checker(content.schema).Check(body)) {
    found.push(`${answer.statusCode} body does not match the declared schema: ${answer.body.slice(0, 120)}`)
  }
  if (answer.statusCode >= 400 && !/[가-힣]/.test((body as { message?: string }).message ?? '')) {
    found.push(`${answer.statusCode} message is not Korean: ${answer.body.slice(0, 120)}`)
  }
  return found
}

/** A path of the document with every parameter filled in with a plausible value. */
const filled = (path: string) => path.replace(/\{[^}]+\}/g, '1')

/**
 * Calls every operation of the document without a bearer token (with its query parameters filled in,
 * and an empty JSON body where it takes one) and lists each one that refuses as a signed-in call does
 * (401 with the sign-in message) while its document declares no 401 or no bearer scheme: a guarded
 * route whose schema forgot them.
 */
export async function unguardedDeclarations(
  app: {
    inject(options: {
      method: string
      url: string
      payload?: object
    }): Promise<{ statusCode: number; json(): unknown }>
  },
  document: OpenApiDocument,
): Promise<string[]> {
  const found: string[] = []
  for (const { path, method, operation } of operations(document)) {
    const query = (operation.parameters ?? [])
      .filter((parameter) => parameter.in === 'query')
      .map((parameter) => `${parameter.name}=${parameter.name === 'year' ? 2026 : 'x'}`)
      .join('&')
    const response = await app.inject({
      method,
      url: `${filled(path)}${query ? `?${query}` : ''}`,
      ...(operation.requestBody ? { payload: {} } : {}),
    })
    if (response.statusCode !== 401) continue
    if ((response.json() as { message?: string }).message !== '로그인이 필요합니다.') continue
    if (!operation.responses['401'])
      found.push(`${method} ${path}: refuses without a token but declares no 401`)
    if (!operation.security?.length)
      found.push(`${method} ${path}: refuses without a token but declares no bearer scheme`)
  }
  return found.sort()
}

/**
 * Checks every answer the file's shared app gives against its OpenAPI document, from the file's
 * `beforeAll` on: `seen` collects each "METHOD path status" met (a file's last test can then ask that
 * every declared status was met), `undeclared` each problem. `documentPath` turns a URL into the
 * document's path (its parameters as `{id}`).
 */
export function checkEveryAnswer(
  current: { readonly app: { inject: InjectFunction } },
  documentPath: (url: string) => string,
) {
  const seen = new Set<string>()
  const undeclared: string[] = []
  beforeAll(async () => {
    const { app } = current
    const document = (await app.inject({ method: 'GET', url: '/api/openapi.json' })).json() as OpenApiDocument
    const inject = app.inject.bind(app)
    app.inject = (async (options: InjectOptions) => {
      const response = await inject(options)
      const { method = 'GET', url = '' } = options as { method?: string; url?: string }
      const path = documentPath(url)
      seen.add(`${method} ${path} ${response.statusCode}`)
      undeclared.push(
        ...problems(document, method, path, answerOf(response)).map((p) => `${method} ${url}: ${p}`),
      )
      return response
    }) as InjectFunction
  })
  return { seen, undeclared }
}
