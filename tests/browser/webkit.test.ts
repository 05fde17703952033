// cuckoo-wasm in WebKit (Safari's engine): Debian's WebKitGTK MiniBrowser under Xvfb, driven over W3C WebDriver
// (harness.ts launchWebKit), running the suite of browser-suite.ts: the job page, the module worker, the CSP refusal
// and the runtime scenario on both entries, each result equal to what Node.js gets. WebDriver reports no console, so
// the pages' own records (CSP violations, errors in the result) are what shows a problem here.
import { launchWebKit } from './harness';
import { browserSuite } from './browser-suite';

browserSuite({
  name: 'webkit',
  launch: launchWebKit,
  // WebKit refuses to instantiate (it compiles), and fires no securitypolicyviolation event for it: its message,
  // quoted in the error, is the sign that the browser refused.
  refusal: 'Refused to create a WebAssembly object',
});
