// cuckoo-wasm in Firefox: Debian's firefox-esr, headless, driven over WebDriver BiDi by puppeteer-core
// (harness.ts launchFirefox), running the suite of browser-suite.ts: the job page, the module worker, the CSP
// refusal and the runtime scenario on both entries, each result equal to what Node.js gets.
import { launchFirefox } from './harness';
import { browserSuite } from './browser-suite';

browserSuite({ name: 'firefox', launch: launchFirefox });
