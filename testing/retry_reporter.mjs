// A vitest reporter for testing/run_all.sh: appends one line per test that passed only after a retry
// (`{ retry: N }` or `--retry`) to the file named by RETRY_REPORT, as `file > full name (retry xN)`,
// so the summary can say which tests are flaky instead of counting them as plain passes.
import { appendFileSync } from "node:fs";
import { relative } from "node:path";

export default class RetryReporter {
  onTestCaseResult(testCase) {
    const file = process.env.RETRY_REPORT;
    const retries = testCase.diagnostic()?.retryCount ?? 0;
    if (!file || retries === 0 || testCase.result().state !== "passed") return;
    const where = relative(process.cwd(), testCase.module.moduleId);
    appendFileSync(file, `${where} > ${testCase.fullName} (retry x${retries})\n`);
  }
}
