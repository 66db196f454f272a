// Drives code-server in headless Chromium: waits for the workbench, opens a file with Quick
// Open, opens the Problems panel and waits for a diagnostic with the expected code, then saves a
// screenshot. Exits 1 (with a screenshot of what was on screen) when the diagnostic never shows.

const { chromium } = require("playwright-core");

function option(name) {
  const at = process.argv.indexOf(`--${name}`);
  if (at < 0 || at + 1 >= process.argv.length) {
    throw new Error(`missing --${name}`);
  }
  return process.argv[at + 1];
}

const TIMEOUT_MS = 180000;

async function main() {
  const url = option("url");
  const file = option("file");
  const expected = option("expect");
  const screenshot = option("screenshot");
  const browser = await chromium.launch({
    executablePath: option("chromium"),
    args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
           "--disable-component-update", "--disable-sync", "--no-first-run"],
  });
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  try {
    await gotoWhenUp(page, url);
    await page.waitForSelector(".monaco-workbench .part.editor", { timeout: TIMEOUT_MS });
    await page.waitForSelector(".explorer-folders-view .monaco-list-row", { timeout: TIMEOUT_MS });
    await page.keyboard.press("Control+P");
    await page.waitForSelector(".quick-input-widget input", { timeout: TIMEOUT_MS });
    await page.keyboard.type(file);
    await page.waitForSelector(`.quick-input-list .monaco-list-row[aria-label*="${file}"]`,
                               { timeout: TIMEOUT_MS });
    await page.keyboard.press("Enter");
    await page.waitForSelector(`.tab[aria-label*="${file}"]`, { timeout: TIMEOUT_MS });
    await page.keyboard.press("Control+Shift+M");
    const row = page.locator(".markers-panel .monaco-list-row", { hasText: expected });
    await row.first().waitFor({ timeout: TIMEOUT_MS });
    await page.locator(".monaco-editor .squiggly-error").first().waitFor({ timeout: TIMEOUT_MS });
    const text = (await row.first().innerText()).replace(/\s+/g, " ");
    console.log(`e2e: Problems panel shows: ${text}`);
    await page.screenshot({ path: screenshot });
    console.log(`e2e: PASS (screenshot: ${screenshot})`);
  } catch (error) {
    await page.screenshot({ path: screenshot }).catch(() => undefined);
    console.error(`e2e: FAIL: ${error instanceof Error ? error.message : String(error)}`);
    console.error(`e2e: screenshot of the failure: ${screenshot}`);
    process.exitCode = 1;
  } finally {
    await browser.close();
  }
}

// code-server takes a few seconds to listen: retry the first navigation until it answers.
async function gotoWhenUp(page, url) {
  const deadline = Date.now() + TIMEOUT_MS;
  for (;;) {
    try {
      await page.goto(url, { waitUntil: "domcontentloaded", timeout: 10000 });
      return;
    } catch (error) {
      if (Date.now() > deadline) {
        throw error;
      }
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  }
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
