// Runs npm scripts side by side (the e2e suites of the two builds, each against its own server), each
// line prefixed with its script's name, and fails when any of them fails. `npm test` uses it so the two
// builds' end-to-end runs share the machine's time instead of queueing.
import { type ChildProcess, spawn } from 'node:child_process'

const scripts = process.argv.slice(2)
const children: ChildProcess[] = []
// Stopped (Ctrl-C, a CI timeout), it stops its runs too rather than leave them behind.
for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.on(signal, () => {
    for (const child of children) if (child.pid) process.kill(-child.pid, signal)
    process.exit(130)
  })
const codes = await Promise.all(
  scripts.map(
    (script) =>
      new Promise<number>((resolve) => {
        const child = spawn('npm', ['run', '--silent', script], {
          stdio: ['ignore', 'pipe', 'pipe'],
          // Each run in a process group of its own, so a stop reaches its browser and server too.
          detached: true,
        })
        children.push(child)
        for (const stream of [child.stdout, child.stderr]) {
          let rest = ''
          stream.setEncoding('utf8')
          stream.on('data', (text: string) => {
            const lines = (rest + text).split('\n')
            rest = lines.pop() ?? ''
            for (const line of lines) console.log(`[${script}] ${line}`)
          })
          stream.on('end', () => rest && console.log(`[${script}] ${rest}`))
        }
        child.on('close', (code) => resolve(code ?? 1))
      }),
  ),
)
for (const [i, script] of scripts.entries())
  console.log(`${script}: ${codes[i] === 0 ? 'passed' : `failed (exit ${codes[i]})`}`)
process.exit(codes.some((code) => code !== 0) ? 1 : 0)
