// Tests here drive a real server (imports, exports, restarts): give each up to a minute. Jest reads
// `testTimeout` only as a global option, not per project, so the e2e project sets it here.
jest.setTimeout(60_000);
