/** A run closes what it opened, last opened first, even when a phase or a closing fails half-way. */
import { describe, expect, it } from 'vitest';
import { Closers } from '../src/runner/closers.js';

describe('Closers', () => {
  it('closes last opened first, each once', async () => {
    const closed: string[] = [];
    const c = new Closers();
    c.add(() => closed.push('sandbox'));
    c.add(async () => void closed.push('receiver'));
    c.add(() => closed.push('client'));
    await c.closeAll();
    await c.closeAll();
    expect(closed).toEqual(['client', 'receiver', 'sandbox']);
  });

  it('runs every closing when one fails, then throws the first failure', async () => {
    const closed: string[] = [];
    const c = new Closers();
    c.add(() => closed.push('sandbox'));
    c.add(() => {
      throw new Error('receiver would not close');
    });
    c.add(async () => {
      throw new Error('client would not close');
    });
    await expect(c.closeAll()).rejects.toThrow('client would not close');
    expect(closed).toEqual(['sandbox']);
  });
});
