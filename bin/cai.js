#!/usr/bin/env node
import { main } from '../dist/bundle/cai.js';
main();
