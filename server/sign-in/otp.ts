// One-time sign-in codes. A code is 4 digits from a cryptographic source, stored only as an HMAC bound
// to its phone, valid CODE_TTL_SECONDS, single use, and ended by CODE_MAX_TRIES wrong tries.
//
// A code is bound to the browser that asked for it: to the random device id of its `knownDevice`
// cookie (known-device.ts), which the code request sets in a browser that has none. Only that browser
// may use it, and asking again replaces that browser's code only, so another browser behind the same
// address (a shop's Wi-Fi, a carrier's NAT) can neither replace nor end it. A client that keeps no
// cookies (another app on the contract, a script) signs in as before, from its address (clientKey: an
// IPv4 address or an IPv6 /64), with the latest code it asked for there.
//
// Who a request is counted as (its client) is the known device, for a request that carries a valid
// credential for the phone (below), and otherwise its address. Limits, all counted in the database and
// so shared by every instance:
// - a client asks for codes for one phone at most CODE_REQUESTS_PER_PHONE_PER_HOUR times in any hour
//   and CODE_REQUESTS_PER_PHONE_PER_CLIENT_PER_DAY times in any 24 hours, and for any numbers at most
//   CODE_REQUESTS_PER_IP_PER_HOUR times an hour;
// - a phone gets at most CODE_REQUESTS_PER_PHONE_PER_DAY codes in any 24 hours from all clients
//   together (the SMS cost of a number). The configuration keeps it above what one client may ask
//   for (10 < 30 by default), so one client alone can never stop the owner elsewhere from asking;
//   a refused request takes no slot anywhere;
// - a client makes at most SIGN_ATTEMPTS_PER_IP_PER_HOUR sign-in attempts, whatever the numbers (a
//   refused attempt is not one);
// - an attempt from a client with no live code of its own for the phone is refused like a missing
//   code, without comparing: it is no guess, and it neither spends the code's tries nor counts toward any lock, so
//   someone who never received the code cannot end it or lock its owner out;
// - every SIGN_FAILURES_BEFORE_LOCK consecutive failures of a phone from one client lock that client
//   out of that phone, LOCK_MINUTES the first time and twice as long each time after, at most
//   LOCK_MAX_HOURS: the owner elsewhere is not locked out by them;
// - a phone answers no attempts from any client that is not a known device of it (below) once
//   SIGN_FAILURES_PER_PHONE_PER_DAY failures (from all those clients together) fall within 24 hours:
//   the bound on guesses against one account, whatever the number of addresses the guesser has. One client alone cannot reach it: its locks hold it to 60
//   failures a day, and its codes to CODE_MAX_TRIES x its daily codes (5 x 10 = 50) by default.
//
// Known devices. Those two phone-wide bounds could still be reached by someone who never received a
// code: 3 addresses use a phone's 30 codes a day, and 8 addresses its 80 failures at once (each asking
// for codes of its own and failing 10 times before its first lock), closing the number to its owner
// for a day; and anyone behind the owner's address could use that address's limits and locks. So a
// successful sign-in leaves a credential for that phone in the browser (known-device.ts: an HttpOnly
// cookie holding a random device id and a MAC of phone, generation and id under the server secret). A
// request that carries a valid credential for its phone comes from a known device:
// - its client is the device (`device:<id>`), not its address: every per-client limit above (hourly
//   and daily codes, attempts, its own lock ladder) counts that device alone, so strangers without its
//   credential, behind its address or anywhere, can never use them up or lock it;
// - it is exempt from the phone-wide bounds (the phone's daily codes and its daily failures), so
//   strangers reaching them do not stop the owner's own device from asking for a code and signing in;
//   known devices' codes count against CODE_REQUESTS_PER_PHONE_PER_DAY of their own, so a number is
//   sent at most twice that many codes a day, whoever asks (a stolen credential included);
// - it still needs a code sent by SMS: the credential alone signs nobody in;
// - its failures count instead against SIGN_FAILURES_PER_PHONE_KNOWN_DEVICES_PER_DAY (20), from all
//   known devices of the phone together;
// - it is never worse off than an unknown device: when what counts it as known refuses it (the known
//   devices' 20 failures, which every later user of a shared store-front browser can spend, their
//   codes, or its own limits) while the same request from an unknown device would be let in, it is
//   judged as the unknown device it would be without the cookie (its address, the phone's own windows).
// The guessing bound therefore holds whoever guesses: unknown devices make at most 80 failures a day
// and known devices (the owner's, or a thief's holding a stolen credential, from any number of
// addresses) at most 20 more, so (80 + 20) / 10,000 = 1 % a day at most: a failure is counted in the
// window of the kind the request was judged as, and each window refuses once full. readConfig refuses
// settings whose two windows add up to more than 100.
//
// Refusals are remembered in memory (refusals.ts): a request that every client it may be counted as is
// known to be refused for is answered 429 without touching the database.
//
// Unregistered numbers are answered exactly like registered ones, and get a code row too (never
// sent), so neither the answer nor a later sign-in attempt tells whether a number is registered. A
// sign-in never succeeds for them, so no browser ever holds a known-device credential for one.
//
// The jobs, one a file: who a request is counted as and the windows that count it (windows.ts),
// whether it may go on (judge.ts), the lock ladder (lockout.ts), asking for a code (code-request.ts),
// signing in with one (code-check.ts) and sending it (sms.ts). This file wires them.
import { createHash, createHmac } from 'node:crypto'
import type { Config } from '../config.ts'
import type { Db } from '../db/client.ts'
import { createCodeCheck } from './code-check.ts'
import { createCodeRequest } from './code-request.ts'
import { createJudge } from './judge.ts'
import { createKnownDevices } from './known-device.ts'
import { createLockout } from './lockout.ts'
import { createRefusals } from './refusals.ts'
import type { SmsOutbox } from './sms.ts'

export function createOtp(db: Db, secret: string, now: () => Date, limits: Config['limits'], sms: SmsOutbox) {
  const key = createHash('sha256').update(`sign-in codes:${secret}`).digest()
  const hashCode = (phone: string, code: string) =>
    createHmac('sha256', key).update(`${phone}:${code}`).digest()
  const knownDevices = createKnownDevices(secret)
  const refusals = createRefusals(now)
  const lockout = createLockout(limits, refusals)
  const judge = createJudge(now, limits, refusals, knownDevices, lockout)

  return {
    requestCode: createCodeRequest({ db, limits, sms, judge, hashCode }),
    signIn: createCodeCheck({ db, limits, knownDevices, judge, lockout, hashCode }),

    /** Forgets the refusals remembered (tests that empty the database between cases). */
    forgetRefusals() {
      refusals.clear()
    },
  }
}

export type Otp = ReturnType<typeof createOtp>
