import type { RunFigures } from '../report/figures.js'
import { step } from './progress.js'

export interface Alternated<P extends RunFigures = RunFigures, C extends RunFigures = RunFigures> {
  product: P[]
  ceiling: C[]
}

/**
 * Runs the product and its ceiling in turn, `rounds` times, swapping which goes first each round so
 * neither always meets the warmer cache or the longer table. `before` runs ahead of every run; `label`
 * prefixes the progress line (lib/progress.ts).
 */
export async function alternate<P extends RunFigures, C extends RunFigures>(
  rounds: number,
  product: () => Promise<P>,
  ceiling: () => Promise<C>,
  before: () => Promise<void> = async () => {},
  label = '',
): Promise<Alternated<P, C>> {
  const out: Alternated<P, C> = { product: [], ceiling: [] }
  for (let r = 0; r < rounds; r++) {
    const order = r % 2 === 0 ? (['product', 'ceiling'] as const) : (['ceiling', 'product'] as const)
    for (const side of order) {
      step(
        `${label}round ${r + 1}/${rounds}, ${side} run (${out.product.length + out.ceiling.length} of ${2 * rounds} runs done)`,
      )
      await before()
      if (side === 'product') out.product.push(await product())
      else out.ceiling.push(await ceiling())
    }
  }
  return out
}
