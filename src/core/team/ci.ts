import type { CiRun } from '../episodic/model.js';

/*
 * Which CI system a process runs in, read from the variables each one sets
 * for its jobs: the pipeline's URL, the job, the branch, and the commit the
 * change under test starts from (so a clean CI checkout can still say which
 * symbols the change touched).
 */

export interface CiEnvironment extends CiRun {
  readonly branch: string | null;
  /** The commit the tested change starts from: a pull request's base, the previous push, the last successful build. */
  readonly base: string | null;
}

const ZERO = /^0+$/;
const sha = (v: string | undefined): string | null => (v && /^[0-9a-f]{7,64}$/i.test(v) && !ZERO.test(v) ? v : null);

export function detectCi(env: NodeJS.ProcessEnv = process.env): CiEnvironment | null {
  if (env['GITHUB_ACTIONS'] === 'true') {
    const server = env['GITHUB_SERVER_URL'] ?? 'https://github.com';
    const run = env['GITHUB_RUN_ID'];
    const url = env['GITHUB_REPOSITORY'] && run ? `${server}/${env['GITHUB_REPOSITORY']}/actions/runs/${run}${env['GITHUB_RUN_ATTEMPT'] && env['GITHUB_RUN_ATTEMPT'] !== '1' ? `/attempts/${env['GITHUB_RUN_ATTEMPT']}` : ''}` : null;
    // A pull request names its base branch; a push carries the commit before it in the event payload, which the caller may read.
    const base = env['GITHUB_BASE_REF'] ? `origin/${env['GITHUB_BASE_REF']}` : sha(env['TENURE_CI_BASE']);
    return { provider: 'github-actions', pipelineUrl: url, job: env['GITHUB_JOB'] ?? null, branch: env['GITHUB_HEAD_REF'] || env['GITHUB_REF_NAME'] || null, base };
  }
  if (env['GITLAB_CI'] === 'true') {
    return {
      provider: 'gitlab-ci',
      pipelineUrl: env['CI_JOB_URL'] ?? env['CI_PIPELINE_URL'] ?? null,
      job: env['CI_JOB_NAME'] ?? null,
      branch: env['CI_MERGE_REQUEST_SOURCE_BRANCH_NAME'] || env['CI_COMMIT_REF_NAME'] || null,
      base: sha(env['CI_MERGE_REQUEST_DIFF_BASE_SHA']) ?? sha(env['CI_COMMIT_BEFORE_SHA']),
    };
  }
  if (env['JENKINS_URL'] && (env['BUILD_URL'] || env['BUILD_ID'])) {
    return {
      provider: 'jenkins',
      pipelineUrl: env['BUILD_URL'] ?? null,
      job: env['JOB_NAME'] ?? null,
      branch: env['CHANGE_BRANCH'] || env['BRANCH_NAME'] || env['GIT_BRANCH']?.replace(/^origin\//, '') || null,
      base: sha(env['GIT_PREVIOUS_SUCCESSFUL_COMMIT']) ?? sha(env['GIT_PREVIOUS_COMMIT']),
    };
  }
  return null;
}

export const CI_NAMES: Record<CiRun['provider'], string> = { 'github-actions': 'GitHub Actions', 'gitlab-ci': 'GitLab CI', jenkins: 'Jenkins' };
