import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestApp } from './test-app.ts'

describe('errors', () => {
  let app: Awaited<ReturnType<typeof createTestApp>>
  beforeAll(async () => {
    app = await createTestApp()
  })
  afterAll(() => app.close())

  it('answers an unknown /api path with a JSON 404 and a Korean message', async () => {
    const response = await app.inject({ method: 'GET', url: '/api/v0/no-such-thing' })
    expect(response.statusCode).toBe(404)
    expect(response.headers['content-type']).toMatch(/^application\/json/)
    expect(response.json()).toEqual({ message: '요청한 주소를 찾을 수 없습니다.' })
  })

  it('answers a body that is not JSON with a 400 and a Korean message, not a 500', async () => {
    const response = await app.inject({
      method: 'PUT',
      url: '/api/v0/user/phone',
      headers: { 'content-type': 'application/json' },
      payload: '{"phone":',
    })
    expect(response.statusCode).toBe(400)
    expect(response.json().message).toMatch(/[가-힣]/)
  })
})
