import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

/** The workspace's test loader (scripts/ts-loader), from this file in `src/testing` or `dist/testing`. */
const TEST_LOADER = fileURLToPath(new URL('../../../../scripts/ts-loader/register.mjs', import.meta.url))

/**
 * Node's arguments to run one of the workspace's entry points (`apps/dialer/src/main.ts`) in a child
 * process, as a test does to try it as deployed.
 *
 * By default the TypeScript source, through the test loader the test files run on (scripts/ts-loader):
 * coverage counts what the child runs, line for line. Not tsx: its output is another text of the same
 * file (whitespace removed), and coverage merged from processes that ran two texts of one file is
 * wrong (the API's error handler read 42% covered).
 * With HOLD_DIALER_TEST_CHILDREN=dist, the build beside it (`dist/main.js`, what `pnpm build` writes
 * and production runs): no coverage of the child, and a second or so less CPU per process, as
 * nothing is transpiled or resolved through a loader. CI's second Node line runs this way (.ci/run);
 * the build must then be current, and a missing file fails at once rather than running a stale one.
 */
export function childEntry(sourceFile: string): string[] {
  if (process.env.HOLD_DIALER_TEST_CHILDREN !== 'dist') {
    return ['--conditions=hold-dialer-src', `--import=${TEST_LOADER}`, sourceFile]
  }
  const built = sourceFile.replace(/\/src\/(.+)\.ts$/, '/dist/$1.js')
  if (built === sourceFile || !existsSync(built)) {
    throw new Error(`HOLD_DIALER_TEST_CHILDREN=dist: no build of ${sourceFile} (run pnpm build)`)
  }
  return [built]
}

/** Whether child processes run the build (HOLD_DIALER_TEST_CHILDREN=dist, see `childEntry`). */
export function childrenRunBuild(): boolean {
  return process.env.HOLD_DIALER_TEST_CHILDREN === 'dist'
}
