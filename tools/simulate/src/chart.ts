import type { ModeResult } from './metrics.js'

/**
 * A small SVG line chart (three panels: dial level, abandon rate, occupancy; one line per mode).
 * Written by hand: three polylines and their axes do not justify a charting library and its headless
 * rendering stack.
 */
export function chartSvg(results: ModeResult[], cap: number): string {
  const W = 900
  const panelH = 180
  const pad = { left: 60, right: 20, top: 30, bottom: 30 }
  const panels: Array<{
    title: string
    get: (s: ModeResult['samples'][number]) => number
    max: number
    cap?: number
  }> = [
    { title: 'dial level (lines per idle agent)', get: (s) => s.dialLevel, max: 4 },
    { title: 'abandon rate so far', get: (s) => s.abandonRate, max: Math.max(cap * 2, 0.01), cap },
    { title: 'agent occupancy', get: (s) => s.occupancy, max: 1 },
  ]
  const colours: Record<string, string> = { progressive: '#1f77b4', predictive: '#d62728' }
  const maxMinute = Math.max(1, ...results.flatMap((r) => r.samples.map((s) => s.minute)))
  const x = (m: number) => pad.left + (m / maxMinute) * (W - pad.left - pad.right)
  const parts: string[] = []
  panels.forEach((p, i) => {
    const top = i * (panelH + pad.top + pad.bottom) + pad.top
    const y = (v: number) => top + panelH - (Math.min(v, p.max) / p.max) * panelH
    parts.push(`<text x="${pad.left}" y="${top - 8}" font-size="14">${p.title}</text>`)
    parts.push(
      `<rect x="${pad.left}" y="${top}" width="${W - pad.left - pad.right}" height="${panelH}" fill="none" stroke="#999"/>`,
    )
    parts.push(`<text x="${pad.left - 6}" y="${top + 5}" font-size="11" text-anchor="end">${p.max}</text>`)
    parts.push(`<text x="${pad.left - 6}" y="${top + panelH}" font-size="11" text-anchor="end">0</text>`)
    if (p.cap !== undefined) {
      parts.push(
        `<line x1="${pad.left}" x2="${W - pad.right}" y1="${y(p.cap)}" y2="${y(p.cap)}" stroke="#555" stroke-dasharray="4 3"/>`,
      )
      parts.push(
        `<text x="${W - pad.right - 4}" y="${y(p.cap) - 4}" font-size="11" text-anchor="end">cap ${p.cap}</text>`,
      )
    }
    for (const r of results) {
      const points = r.samples.map((s) => `${x(s.minute).toFixed(1)},${y(p.get(s)).toFixed(1)}`).join(' ')
      parts.push(`<polyline fill="none" stroke="${colours[r.mode]}" stroke-width="1.5" points="${points}"/>`)
    }
    parts.push(
      `<text x="${W - pad.right}" y="${top + panelH + 18}" font-size="11" text-anchor="end">${maxMinute} min</text>`,
    )
  })
  const H = panels.length * (panelH + pad.top + pad.bottom) + 20
  const legend = results
    .map(
      (r, i) =>
        `<text x="${pad.left + 10 + i * 140}" y="${H - 6}" font-size="13" fill="${colours[r.mode]}">${r.mode}</text>`,
    )
    .join('')
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" font-family="sans-serif"><title>Progressive and predictive dialing: dial level, abandon rate, agent occupancy</title><rect width="100%" height="100%" fill="white"/>${parts.join('')}${legend}</svg>\n`
}
