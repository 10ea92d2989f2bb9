// Runs dynalite's command line (its cli.js, the first argument, then its
// options) with one change: a client that goes away before sending its
// request whole ends that request, not the server. dynalite 4.0.0 rethrows
// the request stream's "aborted" error (index.js, httpHandler:
// req.on('error', function (err) { throw err })), which kills the process
// and every test sharing it; a fault test that cuts a connection while a
// request is on its way is enough.
//
//   node scripts/dynalite_server.js .build/tools/dynalite/node_modules/dynalite/cli.js --port PORT ...
'use strict'

const cli = process.argv[2]
process.argv.splice(2, 1)

process.on('uncaughtException', (err) => {
  if (err && err.code === 'ECONNRESET' && err.message === 'aborted') {
    console.error('dynalite: a client went away mid-request; the server goes on')
    return
  }
  console.error(err)
  process.exit(1)
})

require(require('path').resolve(cli))
