#!/usr/bin/env node
// Entry point. The product is TypeScript run through tsx's loader, so an installed package needs no build step.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/cli/main.ts');
process.exitCode = await main(process.argv.slice(2));
