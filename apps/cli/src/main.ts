import { runCli } from './cli-program';

void runCli(process.argv.slice(2), { env: process.env, stdout: process.stdout, stderr: process.stderr }).then((code) => {
  process.exitCode = code;
});
