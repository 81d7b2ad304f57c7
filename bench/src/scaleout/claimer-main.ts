// One dialer of the scale-out part (scaleout-run.ts starts one to three of these): its own process
// and connection pool, running the claims case's claim code (dialer-claims.ts: the dialer's
// `claimLead`, then its settle and agent release in one transaction) for its share of the agents.
// It says `ready` once connected, starts on SIGUSR2 (so every dialer of a run starts together), and
// writes what it claimed to SCALEOUT_RESULT.
import { writeFileSync } from 'node:fs'
import { connect } from '@hold-dialer/db'
import { ClaimLedger } from '../claims/claim-result.js'
import { dialerClaims } from '../claims/dialer-claims.js'
import type { DialerShare } from './scaleout-merge.js'

function env(name: string): string {
  const value = process.env[name]
  if (!value) throw new Error(`${name} is not set`)
  return value
}

async function main(): Promise<void> {
  const agents = env('SCALEOUT_AGENTS').split(',').map(Number)
  const seconds = Number(env('SCALEOUT_SECONDS'))
  const db = connect(env('SCALEOUT_URL'), { poolSize: agents.length })
  try {
    await db.kysely.selectFrom('dialer_employee').select('id').limit(1).execute()
    const go = new Promise<void>((resolve) => process.once('SIGUSR2', () => resolve()))
    process.stdout.write('ready\n')
    await go
    const ledger = new ClaimLedger()
    const cpu = process.cpuUsage()
    const r = await dialerClaims(db, {
      agents,
      seconds,
      dialerId: env('SCALEOUT_DIALER_ID'),
      ledger,
      countLockErrors: true,
    })
    const used = process.cpuUsage(cpu)
    const share: DialerShare = {
      ids: ledger.ids(),
      latencies: ledger.latencies,
      doubleClaims: r.doubleClaims,
      lockErrors: ledger.lockErrors,
      cpuMs: (used.user + used.system) / 1000,
      seconds: r.seconds,
      exhausted: r.exhausted,
    }
    writeFileSync(env('SCALEOUT_RESULT'), JSON.stringify(share))
  } finally {
    await db.close()
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`scale-out dialer failed: ${error instanceof Error ? error.stack : String(error)}\n`)
    process.exit(1)
  },
)
