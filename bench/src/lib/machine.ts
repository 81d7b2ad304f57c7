import { cpus, release, totalmem } from 'node:os'

export interface MachineInfo {
  cpu: string
  cores: number
  memoryGiB: number
  node: string
  kernel: string
}

export function machineInfo(): MachineInfo {
  const list = cpus()
  return {
    cpu: list[0]?.model ?? 'unknown',
    cores: list.length,
    memoryGiB: Math.round((totalmem() / 2 ** 30) * 10) / 10,
    node: process.version,
    kernel: release(),
  }
}

export function describeMachine(m: MachineInfo): string {
  return `${m.cores} x ${m.cpu}, ${m.memoryGiB} GiB RAM, Node ${m.node}, Linux ${m.kernel}`
}
