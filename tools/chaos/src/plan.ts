import type { CustomerScript } from '@hold-dialer/pbx-sim'
import type { FaultKind } from './options.js'
import { Seeded } from './random.js'

// What the seed decides: each customer's behaviour and the faults' order, targets and timings. When a
// fault happens also depends on how fast the machine recovers (the next one waits for that), so two
// runs with one seed inject the same sequence, not at the same instants.

/**
 * Each lead's customer, by lead index: 55% answer after 1-8 s of ringing and talk 20-80 s (2-8 s at
 * the default time scale, so a fault often lands mid-call), 20% busy, 25% never answer (they ring
 * until the dialer's RING_TIMEOUT_SECONDS, 10). In simulated seconds.
 */
export function customerScripts(seed: number, leads: number): CustomerScript[] {
  const rng = Seeded.of(seed, 'customers')
  return Array.from({ length: leads }, (): CustomerScript => {
    const roll = rng.next()
    const ringSeconds = Math.round(rng.between(1, 8) * 10) / 10
    const talkSeconds = Math.round(rng.between(20, 80))
    if (roll < 0.55) return { kind: 'answer', ringSeconds, talkSeconds }
    if (roll < 0.75) return { kind: 'busy' }
    return { kind: 'noanswer' }
  })
}

/**
 * A fault of the main line (kill, db, pbx), injected once the previous one is over and every dialer it
 * hit has recovered: `gapMs` after that. `pick` (0-1) chooses the target among the dialers running
 * then; `awayMs` is how long a killed dialer stays dead, or the PBX away.
 */
export interface MainFault {
  kind: Exclude<FaultKind, 'stop'>
  gapMs: number
  pick: number
  awayMs: number
}

/** The main line's faults: rounds in which each kind comes once, in a new order each round. */
export function* mainFaults(seed: number, kinds: readonly FaultKind[]): Generator<MainFault> {
  const rng = Seeded.of(seed, 'main faults')
  const own = kinds.filter((k): k is MainFault['kind'] => k !== 'stop')
  if (own.length === 0) return
  for (;;) {
    for (const kind of rng.shuffle(own)) {
      yield {
        kind,
        gapMs: Math.round(rng.between(1000, 4000)),
        pick: rng.next(),
        awayMs: Math.round(
          kind === 'kill' ? rng.between(300, 3000) : kind === 'pbx' ? rng.between(0, 800) : 0,
        ),
      }
    }
  }
}

/**
 * A SIGSTOP, on a line of its own beside the main one. It lasts past the reservation timeout, and
 * where it can it spans a round in which another dialer releases expired reservations (every 30 s in
 * each dialer, counted from its start): it starts `leadMs` more than the timeout before that round and
 * ends `tailMs` after it, so the paused dialer's reservations are expired by then and its calls'
 * fate is decided by the others.
 */
export interface PauseFault {
  gapMs: number
  pick: number
  leadMs: number
  tailMs: number
}

export function* pauseFaults(seed: number): Generator<PauseFault> {
  const rng = Seeded.of(seed, 'pauses')
  for (;;) {
    yield {
      gapMs: Math.round(rng.between(2000, 5000)),
      pick: rng.next(),
      leadMs: Math.round(rng.between(1000, 2000)),
      tailMs: Math.round(rng.between(1500, 3000)),
    }
  }
}

/** The item `pick` (0-1) chooses. */
export function picked<T>(items: readonly T[], pick: number): T | undefined {
  return items[Math.min(items.length - 1, Math.floor(pick * items.length))]
}
