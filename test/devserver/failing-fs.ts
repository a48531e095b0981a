/** A file system whose writes fail with ENOSPC once a budget of bytes is spent, as a disk that fills up does. */
import * as fs from 'node:fs';
import type { JournalFs } from '../../devserver/engine/journal-file';

export interface FailingFs extends JournalFs {
  /** Bytes the next writes may still take; Infinity when the disk has room. */
  budget: number;
}

function noSpace(): NodeJS.ErrnoException {
  return Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC', errno: -28 });
}

/** Writes within the budget go to disk; the write that crosses it takes what is left (a torn line), the next fails. */
export function failingFs(budget = Infinity): FailingFs {
  const failing: FailingFs = {
    ...fs,
    budget,
    // The journal calls writeSync(fd, buffer, offset, length, position): the only form this disk takes.
    writeSync: ((fd: number, buffer: Buffer, offset: number, length: number, position: number | null) => {
      if (failing.budget <= 0) throw noSpace();
      const taken = Math.min(length, failing.budget);
      failing.budget -= taken;
      return fs.writeSync(fd, buffer, offset, taken, position);
    }) as typeof fs.writeSync,
  };
  return failing;
}
