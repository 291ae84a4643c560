import fs from 'node:fs';

/**
 * The lines an in-process app's pino log writes on stdout, read where pino writes them (fs.write and
 * fs.writeSync on fd 1); other descriptors are written as usual. Start it before the app, stop it after.
 */
export class LogCapture {
  readonly lines: string[] = [];

  start(): void {
    const realWrite = fs.write;
    const realWriteSync = fs.writeSync;
    const capture = (fd: unknown, data: unknown): boolean => {
      if (fd !== 1) return false;
      this.lines.push(...String(data).split('\n').filter(Boolean));
      return true;
    };
    jest.spyOn(fs, 'write').mockImplementation((fd: number, data: unknown, ...rest: unknown[]) => {
      if (!capture(fd, data)) return (realWrite as (...args: unknown[]) => void)(fd, data, ...rest);
      const done = rest[rest.length - 1] as (err: null, written: number) => void;
      done(null, Buffer.byteLength(String(data)));
    });
    jest.spyOn(fs, 'writeSync').mockImplementation((fd: number, data: unknown, ...rest: unknown[]) => {
      if (!capture(fd, data)) return (realWriteSync as (...args: unknown[]) => number)(fd, data, ...rest);
      return Buffer.byteLength(String(data));
    });
  }

  stop(): void {
    jest.restoreAllMocks();
  }

  /** The parsed lines that mention `text` (a request id, say). */
  about(text: string): Record<string, unknown>[] {
    return this.lines.filter((l) => l.includes(text)).map((l) => JSON.parse(l) as Record<string, unknown>);
  }
}
