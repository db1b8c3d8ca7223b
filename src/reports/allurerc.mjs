// Allure Report 3 configuration for a run's HTML report (used by src/reports/allure.ts through `--config`).
// - awesome, singleFile: one self-contained index.html that opens from disk, no server and no network.
// - groupBy: the tree is endpoint group > check family > requirement. src/runner/allure-writer.ts sets these three
//   suite labels (and the title path) from each check's result; without groupBy the tree would be the file path.
// - agent off: it would add notes for AI agents that are no part of a report.
// - no qualityGate (it crashes on Node 20; the verdict is the suite's own), no known issues, no allureService.
// - history only when the run asks for a trend (src/reports/allure.ts sets FSAPI_ALLURE_HISTORY): Allure appends
//   this run to that file (in the report root, beside the runs) and draws its trend charts from it; otherwise each
//   report stands alone and nothing is written outside its output directory.
const history = process.env.FSAPI_ALLURE_HISTORY;
const limit = Number(process.env.FSAPI_ALLURE_HISTORY_LIMIT);
export default {
  name: 'fsapi-conformance',
  ...(history ? { historyPath: history, ...(limit > 0 ? { historyLimit: limit } : {}) } : {}),
  plugins: {
    awesome: { options: { singleFile: true, groupBy: ['parentSuite', 'suite', 'subSuite'] } },
    agent: { enabled: false },
  },
};
