// What the service worker shows for a push, and where a click on it goes (docs/product.md decision 94):
// every push is a notification, an unreadable one too; the store's sales screen, or the app's start.
import { describe, expect, it } from 'vitest'
import { clickTarget, notificationOf } from '../../../src/pwa/push-payload.ts'

describe('a push as a notification', () => {
  it('shows the server’s title, body and tag, and keeps the store for the click', () => {
    const shown = notificationOf(
      JSON.stringify({ title: '역삼점 · 판매 없음', body: '14:10 이후', tag: 'quiet-3', store: 3 }),
    )
    expect(shown.title).toBe('역삼점 · 판매 없음')
    expect(shown.options).toMatchObject({
      body: '14:10 이후',
      tag: 'quiet-3',
      data: { store: 3 },
      lang: 'ko',
    })
  })

  it('shows something for every push: no payload, text that is not JSON, wrong types', () => {
    for (const payload of [
      undefined,
      '',
      'hello',
      'null',
      '[]',
      JSON.stringify({ title: 5, store: 'x', tag: '' }),
    ]) {
      const shown = notificationOf(payload)
      expect(shown.title, String(payload)).toBe('빨래방 매출')
      expect(shown.options.body, String(payload)).toBe('새 알림이 있습니다. 눌러서 확인하세요.')
      expect(shown.options.data, String(payload)).toEqual({})
      expect(shown.options.tag, String(payload)).toBeUndefined()
    }
  })

  it('a click opens the store’s sales screen on this origin, never an address from the payload', () => {
    expect(clickTarget({ store: 3 }, 'https://app.example.com')).toBe('https://app.example.com/?store=3')
    expect(clickTarget({}, 'https://app.example.com')).toBe('https://app.example.com/')
    expect(clickTarget({ store: -1 }, 'https://app.example.com')).toBe('https://app.example.com/')
    expect(clickTarget({ store: '//evil.example.org' }, 'https://app.example.com')).toBe(
      'https://app.example.com/',
    )
    expect(clickTarget(null, 'https://app.example.com')).toBe('https://app.example.com/')
  })
})
