// The machines section's place on the sales screen (docs/product.md §14, decision 174): its code is
// asked for once the first figures show, from a chunk of its own (build/chunks.ts), so the figures
// never wait for it and the screen's start carries only these lines.
import { type ComponentType, useEffect, useState } from 'react'
import type { MachinesSectionProps } from './machines/machines-section.tsx'

export function MachinesSlot(props: MachinesSectionProps) {
  const [Section, setSection] = useState<ComponentType<MachinesSectionProps> | null>(null)
  useEffect(() => {
    let mounted = true
    import('./machines/machines-section.tsx').then(
      (module) => mounted && setSection(() => module.MachinesSection),
      (error: unknown) => console.error('the machines section could not be loaded', error),
    )
    return () => {
      mounted = false
    }
  }, [])
  return Section ? <Section {...props} /> : null
}
