import { cpus, release, totalmem, type } from 'node:os';
import { MEBIBYTE } from './units';

/** What the figures were measured on: they only compare within one run on one machine. */
export interface Machine {
  readonly cpuModel: string;
  readonly cores: number;
  readonly memoryMiB: number;
  readonly node: string;
  readonly os: string;
}

export function describeMachine(): Machine {
  const processors = cpus();
  return {
    cpuModel: processors[0]?.model.trim() ?? 'unknown',
    cores: processors.length,
    memoryMiB: Math.round(totalmem() / MEBIBYTE),
    node: process.version,
    os: `${type()} ${release()}`,
  };
}

export function renderMachine(machine: Machine): string {
  return [
    `- CPU: ${machine.cpuModel}, ${machine.cores} cores`,
    `- RAM: ${machine.memoryMiB} MiB`,
    `- Node: ${machine.node}`,
    `- OS: ${machine.os}`,
  ].join('\n');
}
