#!/usr/bin/env node
import { execute } from '@oclif/core';
import { fileURLToPath } from 'node:url';

// No user-installed oclif plugins: a diagnostics tool must behave the same on every machine, and
// must not depend on the home directory being readable (CI users, `runuser`, containers).
await execute({ loadOptions: { root: fileURLToPath(new URL('..', import.meta.url)), userPlugins: false } });
