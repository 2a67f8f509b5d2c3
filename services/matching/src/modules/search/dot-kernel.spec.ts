import { describe, expect, it } from 'vitest';
import { DOT_KERNEL_BASE64 } from './dot-kernel-bytes.ts';
import { bytesModuleSource, compileDotKernel } from './dot-kernel-compile.ts';

describe('dot kernel', () => {
  it('ships the bytes of dot-kernel.wat (run `pnpm --filter @hireflow/matching kernel` after editing it)', async () => {
    const bytes = await compileDotKernel();
    expect(Buffer.from(DOT_KERNEL_BASE64, 'base64').equals(Buffer.from(bytes))).toBe(true);
    expect(bytesModuleSource(bytes)).toContain(DOT_KERNEL_BASE64);
  });
});
