/** Default of the API option `uploadLimit`: the whole multipart body. */
export const DEFAULT_UPLOAD_LIMIT = 100 * 1024 * 1024;
/** Default of the API option `maxFiles`: files in one request. */
export const DEFAULT_MAX_FILES = 10;
/** A text part's largest value. */
export const MAX_FIELD_SIZE = 1024 * 1024;
/** Parts (text and files) in one form. */
export const MAX_PARTS = 1000;
/** A file is held in memory up to this size, then written to a temporary file. */
export const SPOOL_THRESHOLD = 1024 * 1024;
