import { describe, expect, it } from 'vitest'
import { sharedTestApp } from './test-app.ts'

const current = sharedTestApp()

describe('errors', () => {
  it('answers an unknown /api path with a JSON 404 and a Korean message', async () => {
    const response = await current.app.inject({ method: 'GET', url: '/api/v0/no-such-thing' })
    expect(response.statusCode).toBe(404)
    expect(response.headers['content-type']).toMatch(/^application\/json/)
    expect(response.json()).toEqual({ message: '요청한 주소를 찾을 수 없습니다.' })
  })

  it('answers a non-API path with a JSON 404 when no web app is built', async () => {
    const response = await current.app.inject({ method: 'GET', url: '/login' })
    expect(response.statusCode).toBe(404)
    expect(response.json()).toEqual({ message: '요청한 주소를 찾을 수 없습니다.' })
  })

  it('answers a body that is not JSON with a 400 and a Korean message, not a 500', async () => {
    const response = await current.app.inject({
      method: 'PUT',
      url: '/api/v0/user/phone',
      headers: { 'content-type': 'application/json' },
      payload: '{"phone":',
    })
    expect(response.statusCode).toBe(400)
    expect(response.json()).toEqual({ message: '요청 형식이 올바르지 않습니다.' })
  })

  it('answers a plain-text body with 400 and a body of an unknown type with 415', async () => {
    const text = await current.app.inject({
      method: 'POST',
      url: '/api/v0/user/sign',
      headers: { 'content-type': 'text/plain' },
      payload: 'phone=01012345678',
    })
    expect(text.statusCode).toBe(400)
    const response = await current.app.inject({
      method: 'POST',
      url: '/api/v0/user/sign',
      headers: { 'content-type': 'application/xml' },
      payload: '<phone>01012345678</phone>',
    })
    expect(response.statusCode).toBe(415)
    expect(response.json()).toEqual({ message: '지원하지 않는 요청 형식입니다. JSON으로 보내 주세요.' })
  })

  it('answers a body too large with 413', async () => {
    const response = await current.app.inject({
      method: 'PUT',
      url: '/api/v0/user/phone',
      payload: { phone: '0'.repeat(100_000) },
    })
    expect(response.statusCode).toBe(413)
    expect(response.json().message).toBe('요청이 너무 큽니다.')
  })

  it('answers a wrong method on a known path with a Korean 404, not a 500', async () => {
    const response = await current.app.inject({ method: 'PATCH', url: '/api/v0/user/phone' })
    expect(response.statusCode).toBe(404)
    expect(response.json().message).toMatch(/[가-힣]/)
  })

  it.each([
    ['a phone that is a number', { phone: 1012345678 }],
    ['a phone that is an object', { phone: { $ne: '' } }],
    ['a phone that is null', { phone: null }],
    ['a code that is an array', { phone: '01012345678', code: ['1', '2'] }],
  ])('refuses %s with a 400, never a 500', async (_, payload) => {
    const url = 'code' in payload ? '/api/v0/user/sign' : '/api/v0/user/phone'
    const response = await current.app.inject({ method: 'code' in payload ? 'POST' : 'PUT', url, payload })
    expect(response.statusCode).toBe(400)
    expect(response.json().message).toMatch(/[가-힣]/)
  })
})
