#!/usr/bin/env node
import { Command } from 'commander'
import { CODE_VERSION } from '../build/code-version.js'
import { buildCommand } from './build-command.js'
import { generateCommand } from './generate-command.js'
import { handleError } from './handle-error.js'
import { sampleCommand } from './sample-command.js'
import { serveCommand } from './serve-command.js'
import { snapshotCommand } from './snapshot-command.js'

const program = new Command('carmarket')
  .description('Polish used-car market statistics: build snapshots from listings exports and answer from them')
  .version(CODE_VERSION)
  .addCommand(generateCommand)
  .addCommand(buildCommand)
  .addCommand(snapshotCommand)
  .addCommand(sampleCommand)
  .addCommand(serveCommand)

program.parseAsync().catch(handleError)
