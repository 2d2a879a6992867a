// The build suffix is the workspace's own version, which lives in the root package.json.
// eslint-disable-next-line @nx/enforce-module-boundaries
import { version as packageVersion } from '../../../../package.json';

/** The public interface version this build implements, with the build as semver metadata. */
export const PUBLIC_API_VERSION = `2.32.0+guidepost.${packageVersion}`;
/** Response header that carries `PUBLIC_API_VERSION` on every response. */
export const API_VERSION_HEADER = 'X-API-Version';
