import { type ModeResult, pct, physicalCeiling } from './metrics.js'
import type { SimParams } from './params.js'

/** The comparison as markdown: one column per mode run, the ratio line when both ran. */
export function table(p: SimParams, results: ModeResult[]): string {
  const row = (name: string, f: (r: ModeResult) => string) => `| ${name} | ${results.map(f).join(' | ')} |`
  const [a, b] = results
  const ratio =
    a && b
      ? [
          '',
          `predictive / progressive talk minutes per agent-hour: ${(b.talkMinutesPerAgentHour / a.talkMinutesPerAgentHour).toFixed(2)}x`,
        ]
      : []
  return [
    `${p.agents} agents, answer rate ${p.answerRate} then ${p.answerRateAfter} after ${p.shiftAt * 100}% of ${p.durationMinutes} simulated minutes,`,
    `ring mean ${p.ringMeanSeconds} s (no answer rings 30 s), talk mean ${p.talkMeanSeconds} s, wrap ${p.wrapSeconds} s, patience ${p.patienceMinSeconds} s + exponential, mean ${p.patienceMeanSeconds} s, seed ${p.seed}`,
    `governor window history: ${p.historyAnswered} answered at ${(p.historyAbandonRate * 100).toFixed(1)}% abandoned; cap ${(p.abandonRateMax * 100).toFixed(1)}%, MAX_DIAL_LEVEL ${p.maxDialLevel}`,
    '',
    `| figure | ${results.map((r) => r.mode).join(' | ')} |`,
    `|---|${results.map(() => '---|').join('')}`,
    row('talk minutes per agent-hour', (r) => r.talkMinutesPerAgentHour.toFixed(1)),
    row(
      `share of the physical ceiling (talk / (talk + wrap-up) x 60 = ${physicalCeiling(p).toFixed(1)})`,
      (r) => r.ceilingShare.toFixed(2),
    ),
    row('agent idle share', (r) => pct(r.idleShare)),
    row('abandon rate (whole run)', (r) => pct(r.abandonRate)),
    row('abandon rate (after the shift)', (r) => pct(r.abandonRateAfterShift)),
    row('answered / abandoned', (r) => `${r.answered} / ${r.abandoned}`),
    row('calls per hour', (r) => r.callsPerHour.toFixed(0)),
    row('leads finished', (r) => String(r.leadsFinished)),
    ...ratio,
  ].join('\n')
}
