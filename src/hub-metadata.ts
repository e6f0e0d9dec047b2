/** The values the Hub accepts in a dataset card's metadata, as constants so checks need no network. */
import type { PipelineType } from '@huggingface/hub'

/** The Hub's licence ids (the `License` type of @huggingface/hub 2.17). */
export const HUB_LICENSES = [
  'apache-2.0', 'mit', 'openrail', 'bigscience-openrail-m', 'creativeml-openrail-m', 'bigscience-bloom-rail-1.0',
  'bigcode-openrail-m', 'afl-3.0', 'artistic-2.0', 'bsl-1.0', 'bsd', 'bsd-2-clause', 'bsd-3-clause', 'bsd-3-clause-clear',
  'c-uda', 'cc', 'cc0-1.0', 'cc-by-2.0', 'cc-by-2.5', 'cc-by-3.0', 'cc-by-4.0', 'cc-by-sa-3.0', 'cc-by-sa-4.0',
  'cc-by-nc-2.0', 'cc-by-nc-3.0', 'cc-by-nc-4.0', 'cc-by-nd-4.0', 'cc-by-nc-nd-3.0', 'cc-by-nc-nd-4.0', 'cc-by-nc-sa-2.0',
  'cc-by-nc-sa-3.0', 'cc-by-nc-sa-4.0', 'cdla-sharing-1.0', 'cdla-permissive-1.0', 'cdla-permissive-2.0', 'wtfpl',
  'ecl-2.0', 'epl-1.0', 'epl-2.0', 'etalab-2.0', 'eupl-1.1', 'agpl-3.0', 'gfdl', 'gpl', 'gpl-2.0', 'gpl-3.0', 'lgpl',
  'lgpl-2.1', 'lgpl-3.0', 'isc', 'lppl-1.3c', 'ms-pl', 'mpl-2.0', 'odc-by', 'odbl', 'openrail++', 'osl-3.0',
  'postgresql', 'ofl-1.1', 'ncsa', 'unlicense', 'zlib', 'pddl', 'lgpl-lr', 'deepfloyd-if-license', 'llama2', 'llama3',
  'llama3.1', 'llama3.2', 'llama3.3', 'gemma', 'apple-ascl', 'apple-amlr', 'unknown', 'other',
] as const

export const HUB_SIZE_CATEGORIES = [
  'n<1K', '1K<n<10K', '10K<n<100K', '100K<n<1M', '1M<n<10M', '10M<n<100M', '100M<n<1B', '1B<n<10B', '10B<n<100B',
  '100B<n<1T', 'n>1T',
] as const

/** The Hub's task categories (PIPELINE_DATA of @huggingface/tasks 0.21). */
export const HUB_TASK_CATEGORIES = [
  'text-classification', 'token-classification', 'table-question-answering', 'question-answering',
  'zero-shot-classification', 'translation', 'summarization', 'feature-extraction', 'text-generation', 'fill-mask',
  'sentence-similarity', 'text-to-speech', 'text-to-audio', 'automatic-speech-recognition', 'audio-to-audio',
  'audio-classification', 'audio-text-to-text', 'voice-activity-detection', 'depth-estimation', 'image-classification',
  'object-detection', 'image-segmentation', 'text-to-image', 'image-to-text', 'image-to-image', 'image-to-video',
  'unconditional-image-generation', 'video-classification', 'reinforcement-learning', 'robotics',
  'tabular-classification', 'tabular-regression', 'tabular-to-text', 'table-to-text', 'multiple-choice', 'text-ranking',
  'text-retrieval', 'time-series-forecasting', 'text-to-video', 'image-text-to-text', 'image-text-to-image',
  'image-text-to-video', 'visual-question-answering', 'document-question-answering', 'zero-shot-image-classification',
  'graph-ml', 'mask-generation', 'zero-shot-object-detection', 'text-to-3d', 'image-to-3d', 'image-feature-extraction',
  'video-text-to-text', 'keypoint-detection', 'visual-document-retrieval', 'any-to-any', 'video-to-video', 'other',
] as const satisfies readonly PipelineType[]
// Fails to compile when the client learns a task this list lacks.
const allTasks: [Exclude<PipelineType, (typeof HUB_TASK_CATEGORIES)[number]>] extends [never] ? true : never = true
void allTasks

/** The Hub's task ids (the subtasks of PIPELINE_DATA), for `task_ids`. */
export const HUB_TASK_IDS = [
  'acceptability-classification', 'entity-linking-classification', 'fact-checking', 'intent-classification',
  'language-identification', 'multi-class-classification', 'multi-label-classification', 'multi-input-text-classification',
  'natural-language-inference', 'semantic-similarity-classification', 'sentiment-classification', 'topic-classification',
  'semantic-similarity-scoring', 'sentiment-scoring', 'sentiment-analysis', 'hate-speech-detection', 'text-scoring',
  'named-entity-recognition', 'part-of-speech', 'parsing', 'lemmatization', 'word-sense-disambiguation',
  'coreference-resolution', 'extractive-qa', 'open-domain-qa', 'closed-domain-qa', 'news-articles-summarization',
  'news-articles-headline-generation', 'dialogue-modeling', 'dialogue-generation', 'conversational', 'language-modeling',
  'text-simplification', 'explanation-generation', 'abstractive-qa', 'open-domain-abstractive-qa', 'open-book-qa',
  'closed-book-qa', 'text2text-generation', 'slot-filling', 'masked-language-modeling', 'keyword-spotting',
  'speaker-identification', 'audio-intent-classification', 'audio-emotion-recognition', 'audio-language-identification',
  'multi-label-image-classification', 'multi-class-image-classification', 'face-detection', 'vehicle-detection',
  'instance-segmentation', 'semantic-segmentation', 'panoptic-segmentation', 'image-captioning', 'image-inpainting',
  'image-colorization', 'super-resolution', 'grasping', 'task-planning', 'tabular-multi-class-classification',
  'tabular-multi-label-classification', 'tabular-single-column-regression', 'rdf-to-text', 'multiple-choice-qa',
  'multiple-choice-coreference-resolution', 'document-retrieval', 'utterance-retrieval', 'entity-linking-retrieval',
  'fact-checking-retrieval', 'univariate-time-series-forecasting', 'multivariate-time-series-forecasting',
  'visual-question-answering', 'document-question-answering', 'pose-estimation',
] as const

/** The Hub's size category for a row count: each bound belongs to the category above it. */
export function sizeCategoryFor(rows: number): (typeof HUB_SIZE_CATEGORIES)[number] {
  let i = 0
  for (let bound = 1000; rows >= bound && i < HUB_SIZE_CATEGORIES.length - 1; bound *= 10) i++
  return HUB_SIZE_CATEGORIES[i]!
}
