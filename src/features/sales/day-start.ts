// Days on the sales screen are UTC days (docs/product.md §3). The owner is told once, in the owner's
// terms, when such a day starts on the device's clock: in Korea at 9 in the morning.

/**
 * `하루는 오전 9시에 시작합니다 (UTC 기준)` for a device `offsetMinutes` ahead of UTC (Korea: 540;
 * `-new Date().getTimezoneOffset()`).
 */
export function dayStartNote(offsetMinutes: number): string {
  const minutes = ((Math.round(offsetMinutes) % 1440) + 1440) % 1440
  const hour = Math.floor(minutes / 60)
  const minute = minutes % 60
  const clock =
    minutes === 0
      ? '자정'
      : `${hour < 12 ? '오전' : '오후'} ${hour % 12 === 0 ? 12 : hour % 12}시${minute ? ` ${minute}분` : ''}`
  return `하루는 ${clock}에 시작합니다 (UTC 기준)`
}
