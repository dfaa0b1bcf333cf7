import { existsSync } from 'node:fs'

// Debian's Chromium: test tools cannot download browsers here. The flags keep it off the network it
// does not have (background services) and let it run as root in a container.
export const chromePath = process.env.CHROME_PATH ?? '/usr/bin/chromium'

export function checkChrome() {
  if (!existsSync(chromePath)) {
    throw new Error(
      `No Chromium at ${chromePath}. Install one with \`sudo apt-get install -y chromium\` (Debian/Ubuntu), ` +
        'or set CHROME_PATH to a Chromium or Chrome executable.',
    )
  }
}

export const chromeArgs = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
]
