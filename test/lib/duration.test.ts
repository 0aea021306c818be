import { describe, expect, it } from 'vitest';
import { formatDuration, parseDuration } from '../../src/lib/duration.js';

describe('parseDuration', () => {
  const valid: Array<[string, number]> = [
    ['30d', 2_592_000], ['12h', 43_200], ['90m', 5_400], ['45s', 45], ['1d12h', 129_600], ['1h30m15s', 5_415], ['0s', 0], ['2D', 172_800],
  ];
  it.each(valid)('%s = %d s', (text, seconds) => {
    expect(parseDuration(text)).toBe(seconds);
    expect(parseDuration(formatDuration(seconds))).toBe(seconds);
  });

  it.each(['', '30', 'd', '1w', '1.5d', '-1d', '1d 12h', '30days'])('refuses %j', (text) => {
    expect(() => parseDuration(text)).toThrow(/not a duration/);
  });

  it('formats durations compactly', () => {
    expect(formatDuration(129_600)).toBe('1d12h');
    expect(formatDuration(0)).toBe('0s');
    expect(formatDuration(-3_600)).toBe('-1h');
  });
});
