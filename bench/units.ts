/** Data sizes are decimal (1 MB = 10^6 bytes, as throughput is usually quoted); memory is binary (MiB). */
export const MEGABYTE = 1_000_000;
export const MEBIBYTE = 1024 * 1024;

const grouped = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });

export function count(value: number): string {
  return grouped.format(value);
}

export function megabytes(bytes: number): string {
  return `${(bytes / MEGABYTE).toFixed(1)} MB`;
}

export function mebibytes(bytes: number): string {
  return `${(bytes / MEBIBYTE).toFixed(0)} MiB`;
}

export function megabytesPerSecond(bytes: number, milliseconds: number): string {
  return `${(bytes / MEGABYTE / (milliseconds / 1000)).toFixed(1)} MB/s`;
}

export function perSecond(items: number, milliseconds: number, unit: string): string {
  return `${count(items / (milliseconds / 1000))} ${unit}/s`;
}

export function seconds(milliseconds: number): string {
  return `${(milliseconds / 1000).toFixed(1)} s`;
}

export function percent(ratio: number): string {
  return `${(ratio * 100).toFixed(0)} %`;
}
