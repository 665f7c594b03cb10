export { type Change, type DiffOptions, type DiffResult, diffDocuments, type Severity } from './classify.js';
export { DIFF_FORMATS, type DiffFormat, diffFails, diffSummary, FAIL_ON, type FailOn, formatDiff } from './format.js';
export { DocumentInputError, loadDocument } from './inputs.js';
