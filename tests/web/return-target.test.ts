import { describe, expect, it } from 'vitest'
import { returnTarget } from '../../src/features/auth/return-target.ts'

describe('the page a sign-in returns to', () => {
  it('is an app path with its query and hash', () => {
    expect(returnTarget('/alerts?store=2')).toBe('/alerts?store=2')
    expect(returnTarget('/devices')).toBe('/devices')
    expect(returnTarget('/stores#top')).toBe('/stores#top')
    expect(returnTarget('/?store=2&year=2025&month=3')).toBe('/?store=2&year=2025&month=3')
  })

  it('is normalised as the browser would read it', () => {
    expect(returnTarget('/a/../alerts?store=2')).toBe('/alerts?store=2')
  })

  it('is none for the sales screen itself, where a sign-in lands anyway, and for the login screen', () => {
    expect(returnTarget('/')).toBeUndefined()
    expect(returnTarget('/login')).toBeUndefined()
    expect(returnTarget('/login?redirect=%2Falerts')).toBeUndefined()
    expect(returnTarget('/login/')).toBeUndefined()
    expect(returnTarget('/x/../login')).toBeUndefined()
  })

  it('never leaves the app: no other origin, scheme or protocol-relative address', () => {
    for (const asked of [
      'https://evil.example/alerts',
      'http://app.invalid/alerts',
      '//evil.example',
      '//evil.example/alerts',
      '///evil.example',
      '/\\evil.example',
      '\\/evil.example',
      '/\t/evil.example',
      '/\n/evil.example',
      '/ /evil.example',
      '/..//evil.example',
      '/./..//evil.example',
      '/%2e%2e//evil.example',
      'javascript:alert(1)',
      'alerts',
      '',
    ])
      expect(returnTarget(asked), asked).toBeUndefined()
  })

  it('is none for what is not a string', () => {
    for (const asked of [undefined, null, 2, ['/alerts'], { href: '/alerts' }])
      expect(returnTarget(asked)).toBeUndefined()
  })
})
