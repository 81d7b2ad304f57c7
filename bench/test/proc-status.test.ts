import t from 'tap'
import { deployedNodeFlags, startNode } from '../src/lib/child.js'
import {
  MemorySampler,
  mainThreadCpuMs,
  processCpuMs,
  procStatus,
  procStatusMiB,
} from '../src/lib/proc-status.js'

t.test('the sampler keeps the peak private and file-backed memory of a process', async (t) => {
  const sampler = new MemorySampler(process.pid, 10)
  const before = sampler.peakAnonMiB
  // 64 MiB touched: the private part must rise by about that much.
  const block = Buffer.alloc(64 * 1024 * 1024, 1)
  sampler.sample()
  sampler.stop()
  t.ok(block.length > 0)
  t.ok(sampler.peakAnonMiB >= before + 60, `private peak ${sampler.peakAnonMiB} MiB after 64 MiB touched`)
  t.ok(sampler.peakFileMiB > 0, 'the Node binary is mapped from its file')
  const now = procStatus(process.pid)
  t.ok(now && now.VmHWM !== undefined && now.VmHWM >= sampler.peakAnonMiB, 'VmHWM counts the private part')
})

t.test('a process that is gone has no status', async (t) => {
  t.equal(procStatus(2 ** 22 + 1), undefined)
  t.throws(() => procStatusMiB(2 ** 22 + 1, 'VmHWM'), /has no VmHWM/)
})

t.test("the product's processes start with the deployed Node flags", async (t) => {
  t.same(deployedNodeFlags('apps/dialer/dist/main.js'), ['--max-semi-space-size=8'])
  t.same(deployedNodeFlags('tools/anything.js'), [])
  const child = startNode('flags', 'apps/dialer/dist/main.js', {}, ['--version'])
  await new Promise((resolve) => child.process.once('exit', resolve))
  t.match(child.tail(), /^v\d+\./, 'node took the flags and printed its version')
  t.ok(child.peakMemory().fileMiB >= 0)
})

t.test('the CPU time a process has used grows with the work it does', async (t) => {
  const before = processCpuMs(process.pid)!
  const ownBefore = process.cpuUsage()
  const threadBefore = mainThreadCpuMs(process.pid)!
  t.ok(before > 0, `${before} ms used so far`)
  // Spins until the count moves: on a loaded machine the spinning gets less of the CPU, so no time
  // is fixed, only a cap well past any load.
  const cap = performance.now() + 60_000
  let used = 0
  while (used < 100 && performance.now() < cap) {
    for (let i = 0; i < 1e5; i++) used += 0
    used = processCpuMs(process.pid)! - before
  }
  const own = process.cpuUsage(ownBefore)
  const ownMs = (own.user + own.system) / 1000
  // /proc counts in ticks of 10 ms; Node's own count is exact: they agree to two ticks.
  t.ok(Math.abs(used - ownMs) <= 30, `/proc ${used} ms, process.cpuUsage ${ownMs.toFixed(1)} ms`)
  const thread = mainThreadCpuMs(process.pid)! - threadBefore
  t.ok(thread >= 50 && thread <= used + 20, `the main thread did the spinning: ${thread} ms of ${used}`)
  t.equal(mainThreadCpuMs(2 ** 30), null, 'no such process')
})
