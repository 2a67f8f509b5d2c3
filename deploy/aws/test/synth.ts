// Synthesizes the stack in-process with cdk.json's context, as `pnpm synth`
// does, for the tests to read with aws-cdk-lib/assertions.
import { readFileSync } from 'node:fs';
import type { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { vi } from 'vitest';
import { buildApp, type HireflowStack, type HireflowStackProps } from '../src/index.ts';

// A synthesis is seconds of CPU (the Docker asset copies the repository): on a
// shared two-core machine, with other test files beside it, it has taken over
// the default 30 s. The files that synthesize give each test two minutes.
vi.setConfig({ testTimeout: 120_000 });

const cdkJson = JSON.parse(readFileSync(new URL('../cdk.json', import.meta.url), 'utf8')) as {
  context: Record<string, unknown>;
};

/** A pushed image, so tests do not fingerprint the repository for a Docker asset. */
export const TEST_IMAGE = '123456789012.dkr.ecr.eu-west-1.amazonaws.com/hireflow:test';

export interface Synthesized {
  app: App;
  stack: HireflowStack;
  template: Template;
}

export function synthesize(
  context: Record<string, unknown> = {},
  overrides: Omit<HireflowStackProps, 'settings'> = {},
  adjust?: (stack: HireflowStack) => void,
): Synthesized {
  const { app, stack } = buildApp(
    {
      context: {
        ...cdkJson.context,
        // cfn-lint-style rule checks are `pnpm synth`'s (test/synth-cli.test.ts); seconds per synth here.
        '@aws-cdk/core:validateAgainstDefaultRules': false,
        // cdk-nag is test/nag.test.ts's (and every `pnpm synth`'s): the other tests adjust stacks freely.
        nag: 'off',
        imageUri: TEST_IMAGE,
        ...context,
      },
    },
    overrides,
  );
  adjust?.(stack);
  return { app, stack, template: Template.fromStack(stack) };
}
