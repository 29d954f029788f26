/** The service version reported by health and the discovery documents. */
export const VERSION = '0.1.0';
export const API_TITLE = 'Agent Module Platform API';
