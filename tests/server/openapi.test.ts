// GET /api/openapi.json declares every status the server answers: real answers of every kind, each
// checked against the document (status declared for its operation, body matching the declared schema).
import { describe, expect, it } from 'vitest'
import { compactUsageType, compactUsageTypeV2, usageAccept } from '../../contract/usage-compact-type.ts'
import { addStore, addUser, grant } from '../../server/db/accounts.ts'
import { answerOf, type OpenApiDocument, problems, unguardedDeclarations } from './openapi-check.ts'
import { bearer, capturedSms, sharedTestApp, signIn, type TestApp, testClock } from './test-app.ts'

const owner = '01012345678'
const clock = testClock()
const sms = capturedSms()
const current = sharedTestApp({
  env: { SIGN_FAILURES_BEFORE_LOCK: '3' },
  clock,
  sms,
  setup: async (app: TestApp) => {
    await addUser(app.db, { phone: owner, name: '김사장' })
    await grant(app.db, owner, await addStore(app.db, { name: '역삼점' }), 'owner')
    await addStore(app.db, { name: '남의 매장' })
  },
})

interface Case {
  method: 'GET' | 'PUT' | 'POST' | 'DELETE'
  path: string
  url: string
  headers?: Record<string, string>
  payload?: string | object
}

describe('the OpenAPI document', () => {
  it('declares every status each operation answers, with bodies that match it', async () => {
    const { app } = current
    const document = (await app.inject({ method: 'GET', url: '/api/openapi.json' })).json() as OpenApiDocument
    const tokens = await signIn(app, sms, owner)
    const seen: string[] = []
    const found: string[] = []
    async function check({ method, path, url, headers, payload }: Case) {
      const response = await app.inject({ method, url, headers, payload })
      const answer = answerOf(response)
      seen.push(`${method} ${path} ${response.statusCode}`)
      found.push(...problems(document, method, path, answer).map((problem) => `${url}: ${problem}`))
      return response
    }
    const json = { 'content-type': 'application/json' }
    const big = { phone: '0'.repeat(20_000) }
    const phone = '/api/v0/user/phone'
    const sign = '/api/v0/user/sign'
    const usage = '/api/v0/store/{id}/usage'

    await check({ method: 'PUT', path: phone, url: phone, payload: { phone: owner } })
    await check({ method: 'PUT', path: phone, url: phone, payload: { phone: 'x' } })
    await check({ method: 'PUT', path: phone, url: phone, headers: json, payload: '{"phone":' })
    await check({ method: 'PUT', path: phone, url: phone, headers: json, payload: '' })
    await check({ method: 'PUT', path: phone, url: phone, payload: big })
    await check({
      method: 'PUT',
      path: phone,
      url: phone,
      headers: { 'content-type': 'application/xml' },
      payload: '<a/>',
    })
    for (let i = 0; i < 6; i++)
      await check({ method: 'PUT', path: phone, url: phone, payload: { phone: '01055556666' } })

    await check({ method: 'POST', path: sign, url: sign, payload: { phone: owner, code: 'abcd' } })
    await check({ method: 'POST', path: sign, url: sign, payload: big })
    await check({
      method: 'POST',
      path: sign,
      url: sign,
      headers: { 'content-type': 'text/csv' },
      payload: 'a,b',
    })
    await check({ method: 'PUT', path: phone, url: phone, payload: { phone: '01077778888' } })
    for (let i = 0; i < 3; i++)
      await check({ method: 'POST', path: sign, url: sign, payload: { phone: '01077778888', code: '0000' } })

    // The attempt key travels in its cookie (a retry of a lost answer gets the same token again).
    const retried = `${sign}?token=${tokens.refresh}`
    const key = { cookie: 'refreshRetryKey=attempt-key-0123456789' }
    const rotated = await check({ method: 'GET', path: sign, url: retried, headers: key })
    await check({ method: 'GET', path: sign, url: retried, headers: key })
    await check({
      method: 'GET',
      path: sign,
      url: `${sign}?token=${rotated.json().token.refresh}&retry=short`,
      headers: { cookie: 'refreshRetryKey=short' },
    })
    await check({ method: 'GET', path: sign, url: sign })
    await check({ method: 'GET', path: sign, url: `${sign}?token=nope` })
    await check({ method: 'DELETE', path: sign, url: `${sign}?token=nope`, payload: big })
    await check({
      method: 'DELETE',
      path: sign,
      url: `${sign}?token=nope`,
      headers: { 'content-type': 'image/png' },
      payload: 'x',
    })
    await check({ method: 'DELETE', path: sign, url: sign })
    await check({ method: 'DELETE', path: sign, url: `${sign}?token=nope` })

    await check({ method: 'GET', path: '/api/v0/user', url: '/api/v0/user', headers: bearer(tokens.access) })
    await check({ method: 'GET', path: '/api/v0/user', url: '/api/v0/user' })
    await check({ method: 'GET', path: '/api/v0/user', url: '/api/v0/user', headers: bearer('not.a.jwt') })

    const auth = bearer(tokens.access)
    const first = await check({
      method: 'GET',
      path: usage,
      url: '/api/v0/store/1/usage?year=2026',
      headers: auth,
    })
    const etag = String(first.headers.etag)
    await check({
      method: 'GET',
      path: usage,
      url: '/api/v0/store/1/usage?year=2026',
      headers: { ...auth, 'if-none-match': etag },
    })
    // The compact form our app asks for, declared beside the JSON, and its 304.
    const compact = await check({
      method: 'GET',
      path: usage,
      url: '/api/v0/store/1/usage?year=2026',
      headers: { ...auth, accept: usageAccept },
    })
    expect(compact.headers['content-type']).toBe(compactUsageTypeV2)
    // Version 1, for a client that names only it.
    const v1 = await check({
      method: 'GET',
      path: usage,
      url: '/api/v0/store/1/usage?year=2026',
      headers: { ...auth, accept: compactUsageType },
    })
    expect(v1.headers['content-type']).toBe(compactUsageType)
    await check({
      method: 'GET',
      path: usage,
      url: '/api/v0/store/1/usage?year=2026',
      headers: { ...auth, accept: usageAccept, 'if-none-match': String(compact.headers.etag) },
    })
    await check({ method: 'GET', path: usage, url: '/api/v0/store/2/usage?year=2026', headers: auth })
    await check({ method: 'GET', path: usage, url: '/api/v0/store/1/usage?year=Infinity', headers: auth })
    await check({ method: 'GET', path: usage, url: '/api/v0/store/1/usage?year=2026' })
    await check({ method: 'GET', path: usage, url: '/api/v0/store//usage?year=2026', headers: auth })
    await check({
      method: 'GET',
      path: usage,
      url: `/api/v0/store/${'9'.repeat(200)}/usage?year=2026`,
      headers: auth,
    })

    const changes = '/api/v0/store/{id}/usage/changes'
    const changesUrl = '/api/v0/store/1/usage/changes'
    await check({ method: 'GET', path: changes, url: `${changesUrl}?year=2026&after=0`, headers: auth })
    await check({ method: 'GET', path: changes, url: `${changesUrl}?year=2026&after=99`, headers: auth })
    await check({
      method: 'GET',
      path: changes,
      url: `${changesUrl}?year=2026&after=0&wait=26`,
      headers: auth,
    })
    await check({ method: 'GET', path: changes, url: `${changesUrl}?year=2026&after=0` })
    await check({
      method: 'GET',
      path: changes,
      url: '/api/v0/store/2/usage/changes?year=2026&after=0',
      headers: auth,
    })

    const overview = '/api/v0/stores/overview'
    await check({ method: 'GET', path: overview, url: overview, headers: auth })
    await check({ method: 'GET', path: overview, url: overview })

    expect(found).toEqual([])
    // The attempt key is declared, with what it does, for the exchange only: a cookie, never the query.
    const parameters = (method: string) =>
      (
        (
          document.paths[sign]?.[method] as {
            parameters?: { name: string; in: string; description?: string }[]
          }
        )?.parameters ?? []
      ).map(
        (parameter) =>
          `${parameter.in} ${parameter.name}${parameter.description?.includes('Attempt key') ? ' (described)' : ''}`,
      )
    expect(parameters('get')).toEqual(['query token', 'cookie refreshRetryKey (described)'])
    expect(parameters('delete')).toEqual(['query token'])
    // Every kind of answer above was really produced (a case that stopped producing its status would
    // otherwise pass unnoticed).
    const statuses = (prefix: string) =>
      [...new Set(seen.filter((s) => s.startsWith(prefix)).map((s) => Number(s.slice(-3))))].sort()
    expect(statuses(`PUT ${phone} `)).toEqual([200, 400, 413, 415, 429])
    expect(statuses(`POST ${sign} `)).toEqual([400, 401, 413, 415, 429])
    expect(statuses(`GET ${sign} `)).toEqual([200, 400, 401])
    expect(statuses(`DELETE ${sign} `)).toEqual([204, 400, 413, 415])
    expect(statuses('GET /api/v0/user ')).toEqual([200, 401])
    expect(statuses(`GET ${usage} `)).toEqual([200, 304, 400, 401, 403, 414])
    expect(statuses(`GET ${changes} `)).toEqual([200, 400, 401, 403])
    expect(statuses(`GET ${overview} `)).toEqual([200, 401])
  })

  it('declares the known-device cookie a sign-in sets', async () => {
    const { app } = current
    const document = (await app.inject({ method: 'GET', url: '/api/openapi.json' })).json() as {
      paths: Record<
        string,
        Record<string, { responses: Record<string, { headers?: Record<string, unknown> }> }>
      >
    }
    await app.inject({ method: 'PUT', url: '/api/v0/user/phone', payload: { phone: owner } })
    const signed = await app.inject({
      method: 'POST',
      url: '/api/v0/user/sign',
      payload: { phone: owner, code: sms.lastCode(owner) },
    })
    expect(signed.statusCode).toBe(200)
    expect(String(signed.headers['set-cookie'])).toMatch(/^knownDevice=/)
    const declared = document.paths['/api/v0/user/sign']?.post?.responses['200']?.headers
    expect(declared?.['set-cookie']).toMatchObject({
      schema: { type: 'string' },
      description: expect.stringContaining('knownDevice'),
    })
  })

  it('declares the server error, and 400 where it reads input, for every operation', async () => {
    const document = (
      await current.app.inject({ method: 'GET', url: '/api/openapi.json' })
    ).json() as OpenApiDocument
    for (const [path, methods] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(methods)) {
        const declared = Object.keys(operation.responses)
        expect(declared, `${method} ${path}`).toContain('500')
        if (operation.requestBody || operation.parameters?.length)
          expect(declared, `${method} ${path}`).toContain('400')
      }
    }
  })

  it('reports an answer whose status its operation does not declare', async () => {
    const document = (
      await current.app.inject({ method: 'GET', url: '/api/openapi.json' })
    ).json() as OpenApiDocument
    const teapot = { statusCode: 418, headers: {}, body: '{"message":"차"}' }
    expect(problems(document, 'GET', '/api/v0/user', teapot)).toEqual([
      'GET /api/v0/user answered 418, which it does not declare',
    ])
  })

  it('declares 401 and the bearer scheme on every operation that refuses a request without a token', async () => {
    const { app } = current
    const document = (await app.inject({ method: 'GET', url: '/api/openapi.json' })).json() as OpenApiDocument
    const problems = await unguardedDeclarations(app, document)
    expect(problems).toEqual([])
    // The check can fail: the same answers against a document whose signed-in operations forgot both.
    const forgetful = structuredClone(document)
    for (const methods of Object.values(forgetful.paths))
      for (const operation of Object.values(methods)) {
        delete operation.security
        delete operation.responses['401']
      }
    expect(await unguardedDeclarations(app, forgetful)).toEqual([
      'DELETE /api/v0/push/subscription: refuses without a token but declares no 401',
      'DELETE /api/v0/push/subscription: refuses without a token but declares no bearer scheme',
      'DELETE /api/v0/store/{id}/devices/{deviceId}: refuses without a token but declares no 401',
      'DELETE /api/v0/store/{id}/devices/{deviceId}: refuses without a token but declares no bearer scheme',
      'DELETE /api/v0/store/{id}/invites/{inviteId}: refuses without a token but declares no 401',
      'DELETE /api/v0/store/{id}/invites/{inviteId}: refuses without a token but declares no bearer scheme',
      'DELETE /api/v0/store/{id}/members/{userId}: refuses without a token but declares no 401',
      'DELETE /api/v0/store/{id}/members/{userId}: refuses without a token but declares no bearer scheme',
      'GET /api/v0/alerts/settings: refuses without a token but declares no 401',
      'GET /api/v0/alerts/settings: refuses without a token but declares no bearer scheme',
      'GET /api/v0/alerts: refuses without a token but declares no 401',
      'GET /api/v0/alerts: refuses without a token but declares no bearer scheme',
      'GET /api/v0/push/key: refuses without a token but declares no 401',
      'GET /api/v0/push/key: refuses without a token but declares no bearer scheme',
      'GET /api/v0/store/{id}/devices: refuses without a token but declares no 401',
      'GET /api/v0/store/{id}/devices: refuses without a token but declares no bearer scheme',
      'GET /api/v0/store/{id}/export/tax.csv: refuses without a token but declares no 401',
      'GET /api/v0/store/{id}/export/tax.csv: refuses without a token but declares no bearer scheme',
      'GET /api/v0/store/{id}/machines: refuses without a token but declares no 401',
      'GET /api/v0/store/{id}/machines: refuses without a token but declares no bearer scheme',
      'GET /api/v0/store/{id}/members/log: refuses without a token but declares no 401',
      'GET /api/v0/store/{id}/members/log: refuses without a token but declares no bearer scheme',
      'GET /api/v0/store/{id}/members: refuses without a token but declares no 401',
      'GET /api/v0/store/{id}/members: refuses without a token but declares no bearer scheme',
      'GET /api/v0/store/{id}/usage/changes: refuses without a token but declares no 401',
      'GET /api/v0/store/{id}/usage/changes: refuses without a token but declares no bearer scheme',
      'GET /api/v0/store/{id}/usage: refuses without a token but declares no 401',
      'GET /api/v0/store/{id}/usage: refuses without a token but declares no bearer scheme',
      'GET /api/v0/stores/overview: refuses without a token but declares no 401',
      'GET /api/v0/stores/overview: refuses without a token but declares no bearer scheme',
      'GET /api/v0/user: refuses without a token but declares no 401',
      'GET /api/v0/user: refuses without a token but declares no bearer scheme',
      'PATCH /api/v0/store/{id}/devices/{deviceId}: refuses without a token but declares no 401',
      'PATCH /api/v0/store/{id}/devices/{deviceId}: refuses without a token but declares no bearer scheme',
      'PATCH /api/v0/store/{id}/machines/{machine}: refuses without a token but declares no 401',
      'PATCH /api/v0/store/{id}/machines/{machine}: refuses without a token but declares no bearer scheme',
      'PATCH /api/v0/store/{id}/members/{userId}: refuses without a token but declares no 401',
      'PATCH /api/v0/store/{id}/members/{userId}: refuses without a token but declares no bearer scheme',
      'POST /api/v0/push/test: refuses without a token but declares no 401',
      'POST /api/v0/push/test: refuses without a token but declares no bearer scheme',
      'POST /api/v0/store/{id}/devices: refuses without a token but declares no 401',
      'POST /api/v0/store/{id}/devices: refuses without a token but declares no bearer scheme',
      'POST /api/v0/store/{id}/invites: refuses without a token but declares no 401',
      'POST /api/v0/store/{id}/invites: refuses without a token but declares no bearer scheme',
      'PUT /api/v0/alerts/settings: refuses without a token but declares no 401',
      'PUT /api/v0/alerts/settings: refuses without a token but declares no bearer scheme',
      'PUT /api/v0/push/subscription: refuses without a token but declares no 401',
      'PUT /api/v0/push/subscription: refuses without a token but declares no bearer scheme',
    ])
  })
})
