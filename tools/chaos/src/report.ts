import type { ChaosResult, Invariant } from './run.js'

/** Whether the run failed: any invariant, the pending change's attempt-row checks included. */
export function failed(r: ChaosResult): boolean {
  return [...r.invariants, ...r.attemptRows].some((i) => i.count > 0)
}

function table(header: string[], rows: (string | number)[][]): string[] {
  const cells = [header, ...rows.map((row) => row.map(String))]
  const widths = header.map((_, c) => Math.max(...cells.map((row) => row[c]?.length ?? 0)))
  const line = (row: string[]) =>
    row
      .map((cell, c) => (c === 0 ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!)))
      .join('  ')
      .trimEnd()
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...cells.slice(1).map(line)]
}

function invariantRows(list: Invariant[]): string[] {
  const lines = table(
    ['invariant', 'count', 'result'],
    list.map((i) => [i.name, i.count, i.count === 0 ? 'ok' : 'FAILED']),
  )
  for (const i of list) {
    if (i.count === 0) continue
    lines.push('', `${i.name}: ${i.count}, for example:`)
    for (const e of i.examples) lines.push(`  ${e}`)
  }
  return lines
}

/** The run's report: plain text tables, then the verdict. */
export function report(r: ChaosResult): string {
  const o = r.options
  const out: string[] = [
    `chaos run: ${o.mode}, seed ${o.seed}, ${o.dialers} dialers, ${o.agents} agents, ${o.leads} leads, RESERVATION_TIMEOUT_SECONDS=${o.reservationTimeout}, pbx-sim at ${o.timeScale}x`,
    `faults injected for ${r.faultSeconds} s (${o.faults.join(', ')}); whole run ${r.totalSeconds} s`,
    '',
    ...table(
      ['what', 'count'],
      [
        ['originates (pbx-sim)', r.calls.originates],
        ['calls placed (a customer was rung)', r.calls.placed],
        ['calls settled (attempt rows)', r.calls.settled],
        ['  of which superseded (a late result kept apart)', r.calls.superseded],
        ['  of which Unknown (a result lost, counted by a release)', r.calls.unknown],
        ['faults: kill -9 and restart', r.faultCounts.kill],
        ['faults: SIGSTOP past the reservation timeout', r.faultCounts.stop],
        ["  of which over another dialer's release round", r.pausesOverRelease],
        ["faults: KILL of the dialers' MariaDB connections", r.faultCounts.db],
        ['faults: PBX restart', r.faultCounts.pbx],
      ],
    ),
    '',
    ...invariantRows(r.invariants),
    '',
    'the attempt rows (a row opened when each call is placed, completed when it ends):',
    ...invariantRows(r.attemptRows),
    '',
    'faults:',
    ...table(
      ['at s', 'fault', 'target', 'lasted s', 'detail'],
      [...r.faults]
        .sort((a, b) => a.at - b.at)
        .map((f) => [f.at.toFixed(1), f.kind, f.target, f.seconds.toFixed(1), f.detail]),
    ).map((l) => `  ${l}`),
    '',
    `recovery after each fault (seconds to the first call placed or settled): ${
      r.recoveries.map((x) => `${x.dialerId}@${x.fault} ${x.seconds ?? x.status}`).join(', ') || 'none'
    }`,
  ]
  out.push(
    '',
    `seconds each dialer took to exit after SIGTERM: ${Object.entries(r.sigtermSeconds)
      .map(([id, s]) => `${id} ${s}`)
      .join(', ')}`,
  )
  if (r.slowToSettle.count > 0) {
    out.push(
      '',
      `leads still reserved after the agents were paused and the longest call and the reservation timeout were over (left to a release round): ${r.slowToSettle.count}`,
    )
    for (const e of r.slowToSettle.examples) out.push(`  ${e}`)
  }
  if (r.dialerMessages.length > 0) {
    out.push('', 'what the dialers logged at warn and above (count, message):')
    for (const [msg, n] of r.dialerMessages.slice(0, 15)) out.push(`  ${String(n).padStart(6)}  ${msg}`)
  }
  if (r.checkerErrors > 0)
    out.push('', `the checker's own queries failed ${r.checkerErrors} times (not counted as invariants)`)
  const others = r.invariants.filter((i) => i.count > 0).length
  const rows = r.attemptRows.filter((i) => i.count > 0).length
  out.push(
    '',
    others === 0 && rows === 0
      ? 'every invariant held'
      : others === 0
        ? 'every invariant held but the attempt-row checks (pending change, item 4)'
        : `FAILED: ${others} invariant(s)${rows > 0 ? ', and the attempt-row checks' : ''}; rerun with --seed ${o.seed}`,
  )
  return out.join('\n')
}
