"""The tests ``make test`` leaves to ``make test-all``.

``make test`` is the check every change gets, and it has to stay fast on a 2-core machine
(benchmarks/decisions/test_tiers.md). It runs every test but the ones listed here: the long variants of a part
that ``make test`` already exercises for real (a second Ray build, a gateway's every surface, a page's every
width). Each entry names, first, what ``make test`` keeps of the same part, so that no real part (Milvus Lite
and the Milvus server, Ray, llama.cpp and its server, PostgreSQL, Chromium, the MCP processes, LiteLLM, NeMo,
OpenClaw, Prometheus) goes unexercised there.

tests/conftest.py marks these tests ``full``; scripts/test.sh deselects the mark unless
``FACTDEBATE_TEST_ALL=1`` (``make test-all``). A test named on the command line runs whatever its tier.
tests/test_tiers.py checks that every name here is a test that exists."""

from __future__ import annotations

# module -> (what make test keeps of the same part, and what these add; the tests left to make test-all).
# A name covers each of its parameters unless it gives one ("name[param]").
FULL_ONLY: dict[str, tuple[str, tuple[str, ...]]] = {
    "tests/cli/test_before_the_run.py": (
        "a dead or batching model server named before the run, on verify's index, serve and reproduce; make test "
        "keeps the module's other checks before the run",
        (
            "test_reproduce_names_a_dead_model_server_once_before_any_cell",
            "test_serve_says_a_dead_model_server_in_one_line_and_starts",
            "test_serve_says_a_server_that_batches_is_sent_many_at_once",
            "test_a_dead_model_server_is_named_before_the_index_is_built",
        ),
    ),
    "tests/cli/test_compare.py": (
        "compare run from the command line on several methods; make test keeps compare's statistics and files in "
        "process (tests/eval/compare) and its refusals",
        (
            "test_compare_gives_the_same_bytes_and_refuses_other_draws",
            "test_compare_prices_each_model_at_its_own_rate",
            "test_several_methods_run_on_one_draw_and_are_compared",
        ),
    ),
    "tests/cli/test_corpus.py": (
        "fetching Wikipedia pages then indexing them; the wiki tool server's offline test and the built-in index "
        "cover both halves",
        (
            "test_fetch_wikipedia_then_index_it_by_name",
        ),
    ),
    "tests/cli/test_datasets.py": (
        "datasets fetched from the local Hub double, and the Hub unreachable; make test keeps the model's parts "
        "and the model fetched from the Hub double (tests/hub)",
        (
            "test_an_unreachable_hub_and_a_wrong_checksum_are_one_line_and_exit_2",
            "test_a_dataset_by_name_is_fetched_once_then_used_offline",
        ),
    ),
    "tests/cli/test_eval.py": (
        "the grid and report of a dry-run eval; the eval and report modules' own tests run in make test",
        (
            "test_datasets_eval_dry_run_grid_and_report",
        ),
    ),
    "tests/cli/test_help.py": (
        "every command's help read for flags; the other help tests run in make test",
        (
            "test_no_command_shows_a_flag_as_taking_a_value",
        ),
    ),
    "tests/cli/test_main.py": (
        "index then verify on Milvus Lite and Tantivy, the results page against a served model and an unindexed "
        "corpus; make test keeps the demo's command indexing the built-in corpus on both engines and verifying "
        "(test_builtin_index)",
        (
            "test_the_results_page_command_runs_unchanged_against_a_served_model",
            "test_verify_on_an_unindexed_corpus_says_how_to_build_it",
            "test_index_then_verify_with_real_milvus_and_tantivy",
        ),
    ),
    "tests/cli/test_milvus_server.py": (
        "make test keeps index, verify, eval and doctor against the Milvus server; this adds three processes on "
        "one collection",
        (
            "test_two_service_processes_search_one_collection_while_another_process_adds_to_it",
        ),
    ),
    "tests/cli/test_reproduce.py": (
        "MERMAID's reproduce with and without memory; its memory tests and golden records run in make test",
        (
            "test_mermaid_runs_with_and_without_a_memory_of_each_runs_own",
        ),
    ),
    "tests/corpus/test_builtin_index.py": (
        "make test keeps the demo command's build and two processes building once; these add a build killed mid- "
        "way and interrupts",
        (
            "test_a_build_killed_mid_way_is_finished_on_the_next_run",
            "test_an_interrupt_stops_a_command_that_is_building_the_index[check-response-15]",
            "test_an_interrupt_stops_a_command_that_is_building_the_index[verify-2]",
        ),
    ),
    "tests/corpus/test_indexing.py": (
        "a stress case: one huge document without spaces",
        (
            "test_dense_search_finds_a_passage_deep_in_a_huge_document_without_spaces",
        ),
    ),
    "tests/corpus/test_interrupted_builds.py": (
        "make test keeps Ctrl-C in the full-text step and in the vectors built in the background; these are the "
        "other steps, each waited for or before a claim that does not wait, and a wait for another process's build",
        (
            "test_ctrl_c_in_a_step_of_the_build_stops_verify_before_its_claim[the embeddings-wait]",
            "test_ctrl_c_in_a_step_of_the_build_stops_verify_before_its_claim[the encoder's export-wait]",
            "test_ctrl_c_in_a_step_of_the_build_stops_verify_before_its_claim[the vector index-wait]",
            "test_ctrl_c_in_a_step_of_the_build_stops_verify_before_its_claim[the encoder's export-full_text]",
            "test_ctrl_c_in_a_step_of_the_build_stops_verify_before_its_claim[the full-text index-full_text]",
            "test_ctrl_c_while_waiting_for_another_processs_build_stops_at_once",
        ),
    ),
    "tests/corpus/test_lite_private.py": (
        "a build beside a process holding the folder; the locked-database test runs in make test",
        (
            "test_an_index_build_beside_a_process_holding_the_folder_waits_and_says_so",
        ),
    ),
    "tests/corpus/test_milvus_lite_direct.py": (
        "the direct Milvus Lite reader against the client, on a large index",
        (
            "test_direct_search_equals_the_client",
        ),
    ),
    "tests/corpus/test_milvus_server.py": (
        "make test keeps index, verify, eval and doctor against the Milvus server "
        "(tests/cli/test_milvus_server.py); this adds a finalized build seen by another client",
        (
            "test_finalizing_a_build_leaves_the_collection_searchable_for_everyone_else",
        ),
    ),
    "tests/embeddings/test_onnx_graph.py": (
        "the float ONNX graph against torch (the optional float encoder); the int8 encoder's tests run in make "
        "test",
        (
            "test_the_float_graph_gives_the_torch_models_vectors",
        ),
    ),
    "tests/eval/test_eval_retrieval.py": (
        "make test keeps eval-retrieval on the built-in corpus; these add the Milvus server and Tool-MAD's own "
        "round-one queries",
        (
            "test_a_milvus_server_is_measured_as_the_rag_tool_searches_it",
            "test_tool_mads_round_one_queries_are_measured_on_its_own_searches",
        ),
    ),
    "tests/eval/test_third_label.py": (
        "make test keeps every run of the Tool-MAD, MERMAID and DPD papers' tables on their two-label datasets; "
        "these are DPD's table 2 reproduced end to end and the Tool-MAD draft's runs (the same methods under the "
        "draft's settings)",
        (
            "test_reproduce_dpd_table2_with_a_model_that_answers_not_enough_info",
            "test_no_run_of_the_papers_gives_a_two_label_dataset_a_third_label[toolmad-draft-single-feverous]",
            "test_no_run_of_the_papers_gives_a_two_label_dataset_a_third_label[toolmad-draft-single-faviq]",
            "test_no_run_of_the_papers_gives_a_two_label_dataset_a_third_label[toolmad-draft-cot-feverous]",
            "test_no_run_of_the_papers_gives_a_two_label_dataset_a_third_label[toolmad-draft-cot-faviq]",
            "test_no_run_of_the_papers_gives_a_two_label_dataset_a_third_label[toolmad-draft-react-feverous]",
            "test_no_run_of_the_papers_gives_a_two_label_dataset_a_third_label[toolmad-draft-react-faviq]",
            "test_no_run_of_the_papers_gives_a_two_label_dataset_a_third_label[toolmad-draft-mad-feverous]",
            "test_no_run_of_the_papers_gives_a_two_label_dataset_a_third_label[toolmad-draft-mad-faviq]",
            "test_no_run_of_the_papers_gives_a_two_label_dataset_a_third_label[toolmad-draft-madke-feverous]",
            "test_no_run_of_the_papers_gives_a_two_label_dataset_a_third_label[toolmad-draft-madke-faviq]",
            "test_no_run_of_the_papers_gives_a_two_label_dataset_a_third_label[toolmad-draft-tool-mad-feverous]",
            "test_no_run_of_the_papers_gives_a_two_label_dataset_a_third_label[toolmad-draft-tool-mad-faviq]",
            "test_no_run_of_the_papers_gives_a_two_label_dataset_a_third_label[toolmad-draft-vanilla-vanilla-feverous]",
            "test_no_run_of_the_papers_gives_a_two_label_dataset_a_third_label[toolmad-draft-vanilla-vanilla-faviq]",
            "test_no_run_of_the_papers_gives_a_two_label_dataset_a_third_label[toolmad-draft-rag-vanilla-feverous]",
            "test_no_run_of_the_papers_gives_a_two_label_dataset_a_third_label[toolmad-draft-rag-vanilla-faviq]",
            "test_no_run_of_the_papers_gives_a_two_label_dataset_a_third_label[toolmad-draft-search-vanilla-feverous]",
            "test_no_run_of_the_papers_gives_a_two_label_dataset_a_third_label[toolmad-draft-search-vanilla-faviq]",
            "test_no_run_of_the_papers_gives_a_two_label_dataset_a_third_label[toolmad-draft-rag-search-vanilla-feverous]",
            "test_no_run_of_the_papers_gives_a_two_label_dataset_a_third_label[toolmad-draft-rag-search-vanilla-faviq]",
        ),
    ),
    "tests/golden/test_golden.py": (
        "DPD's verify and eval records and MERMAID's eval record; make test keeps every other method's verify "
        "records, MERMAID's, Tool-MAD's eval record and DPD's protocol in process (tests/methods/dpd)",
        (
            "test_every_method_answers_as_recorded[eval-dpd]",
            "test_every_method_answers_as_recorded[eval-mermaid]",
            "test_every_method_answers_as_recorded[verify-dpd]",
        ),
    ),
    "tests/guard/conformance/test_conformance.py": (
        "make test keeps each fault (the checker or the extractor down, slow or answering what cannot be read) "
        "through every door under two of the six policy and on_unchecked pairs, each pair under at least one "
        "fault, and every other scenario; this adds each fault under the four other pairs",
        (
            "test_no_door_delivers_a_false_sentence_as_checked[checker-down-annotate-block]",
            "test_no_door_delivers_a_false_sentence_as_checked[checker-down-flag-pass]",
            "test_no_door_delivers_a_false_sentence_as_checked[checker-down-flag-block]",
            "test_no_door_delivers_a_false_sentence_as_checked[checker-down-block-pass]",
            "test_no_door_delivers_a_false_sentence_as_checked[extractor-down-annotate-pass]",
            "test_no_door_delivers_a_false_sentence_as_checked[extractor-down-flag-block]",
            "test_no_door_delivers_a_false_sentence_as_checked[extractor-down-block-pass]",
            "test_no_door_delivers_a_false_sentence_as_checked[extractor-down-block-block]",
            "test_no_door_delivers_a_false_sentence_as_checked[checker-slow-annotate-pass]",
            "test_no_door_delivers_a_false_sentence_as_checked[checker-slow-annotate-block]",
            "test_no_door_delivers_a_false_sentence_as_checked[checker-slow-flag-pass]",
            "test_no_door_delivers_a_false_sentence_as_checked[checker-slow-block-block]",
            "test_no_door_delivers_a_false_sentence_as_checked[checker-malformed-annotate-pass]",
            "test_no_door_delivers_a_false_sentence_as_checked[checker-malformed-annotate-block]",
            "test_no_door_delivers_a_false_sentence_as_checked[checker-malformed-flag-block]",
            "test_no_door_delivers_a_false_sentence_as_checked[checker-malformed-block-pass]",
            "test_no_door_delivers_a_false_sentence_as_checked[extractor-malformed-annotate-pass]",
            "test_no_door_delivers_a_false_sentence_as_checked[extractor-malformed-flag-pass]",
            "test_no_door_delivers_a_false_sentence_as_checked[extractor-malformed-flag-block]",
            "test_no_door_delivers_a_false_sentence_as_checked[extractor-malformed-block-block]",
        ),
    ),
    "tests/guard/conformance/test_gateway_limits.py": (
        "LiteLLM's proxy and NeMo's LLMRails in front of the guard on the fault scenarios (test_gateways.py), and "
        "the limits' shapes through every core door (test_limits.py); this adds the shapes (a four-fact sentence, "
        "a table, JSON, Japanese, Thai) through both gateways, each started again on the limits' world",
        (
            "test_litellms_guardrail_refutes_the_false_shape_and_passes_its_twin",
            "test_litellms_guardrail_under_block_delivers_no_word_of_the_false_shape",
            "test_the_guard_as_litellms_model_refutes_the_false_shape_and_passes_its_twin",
            "test_a_json_object_answer_through_litellm_is_checked",
            "test_nemos_llmrails_refutes_the_false_shape_and_passes_its_twin",
        ),
    ),
    "tests/guard/conformance/test_generated.py": (
        "make test keeps a statement drawn in plain prose, a heading, a list, a table, JSON, a code comment, German "
        "and Chinese through every door, and Japanese and Thai among the limits' shapes (test_limits.py); this adds "
        "the numbered list, the quote, the wide table, the long sentence, the framing, French, Japanese and Thai",
        (
            "test_a_statement_in_any_format[numbered]",
            "test_a_statement_in_any_format[quote]",
            "test_a_statement_in_any_format[wide-table]",
            "test_a_statement_in_any_format[long-sentence]",
            "test_a_statement_in_any_format[framing]",
            "test_a_statement_in_any_format[French]",
            "test_a_statement_in_any_format[Japanese]",
            "test_a_statement_in_any_format[Thai]",
        ),
    ),
    "tests/guard/conformance/test_limits.py": (
        "make test keeps every limit's shape through every core door under flag, block and hold, and annotate and "
        "rewrite through every door on the scenarios (test_conformance.py); this adds annotate and rewrite on "
        "every limit's shape",
        (
            "test_annotate_marks_and_rewrite_replaces_the_false_statement",
        ),
    ),
    "tests/guard/conformance/test_conversations.py": (
        "make test keeps every conversation through every door under flag, and block and hold through every door "
        "on the limits' shapes and the scenarios; this adds block and hold on every conversation",
        (
            "test_block_refuses_and_hold_withholds_the_false_statement",
        ),
    ),
    "tests/guard/test_hold_formats.py": (
        "make test keeps hold on every format, plain and streamed, and a text read in pieces of 1, 3 and 11 "
        "characters cut into the sentences of the whole; this checks whole guarded replies streamed in pieces "
        "of 1, 2 and 7 characters against the plain check",
        (
            "test_plain_and_streamed_replies_are_cut_into_the_same_sentences_and_spans",
        ),
    ),
    "tests/guard/test_real_model.py": (
        "the guard's fast tier on the embedded model in process; make test keeps the guard in front of "
        "llama.cpp's server (test_guard_llama)",
        (
            "test_the_fast_tier_on_the_embedded_model",
        ),
    ),
    "tests/llm/test_llama_cpp.py": (
        "the embedded model in process: make test keeps its held generation, state cache, readers and scored "
        "choices, and the thread count read from the load (test_llama_threads); these add a whole Tool-MAD round "
        "on it (golden records check Tool-MAD's protocol), the greedy grammar sampler's token-for-token match with "
        "the full-vocabulary check, and a model of its own loaded on a busy machine taking both cores later",
        (
            "test_one_round_of_tool_mad_runs_end_to_end_on_the_real_model",
            "test_a_greedy_grammar_call_writes_what_the_full_vocabulary_check_writes",
            "test_a_model_loaded_on_a_busy_machine_runs_on_both_cores_once_the_load_falls",
        ),
    ),
    "tests/llm/test_llama_server.py": (
        "make test keeps llama.cpp's OpenAI server answering held labels, JSON replies and cancelled calls; these "
        "add verify, MAD and Tool-MAD with query rewrites through it",
        (
            "test_mad_labels_through_the_openai_path",
            "test_tool_mad_with_tools_and_query_rewrites_labels_every_turn",
            "test_verify_labels_every_turn_through_the_openai_path",
            "test_every_reader_reads_a_newline_inside_a_json_string_as_the_server_wrote_it[dpd ballot]",
        ),
    ),
    "tests/methods/toolmad/test_label_guide_offline.py": (
        "make test keeps the label guide's prompt text on a scripted model (test_label_guide); this asks the "
        "offline model about real built-in passages that are silent on the claim (minutes on 2 cores)",
        (
            "test_passages_about_someone_else_end_not_enough_info",
        ),
    ),
    "tests/methods/mermaid/test_embedded.py": (
        "MERMAID on the embedded model; make test keeps Tool-MAD on it (test_llama_cpp) and MERMAID's golden "
        "records",
        (
            "test_embedded_model_runs_mermaid_end_to_end",
        ),
    ),
    "tests/methods/mermaid/test_faults.py": (
        "more tool-server faults; make test keeps the rest of the module",
        (
            "test_a_batch_records_the_failed_claim_as_an_error_and_retries_it_on_resume",
            "test_a_tool_server_that_crashes_on_every_call_makes_the_claim_an_error",
            "test_a_tool_server_that_hangs_makes_the_claim_an_error_and_is_started_again",
            "test_some_failed_calls_beside_one_with_evidence_still_give_a_verdict",
        ),
    ),
    "tests/methods/mermaid/test_run_memory_cli.py": (
        "two identical evaluations write identical records; golden records check the same determinism per method",
        (
            "test_two_identical_evaluations_write_identical_records",
        ),
    ),
    "tests/response_level/test_linear_spans.py": (
        "the sentence splitter and span search against their older forms; the splitter's own tests run in make "
        "test",
        (
            "test_the_shapes_that_were_read_once_per_sentence_or_character_split_as_before",
            "test_the_same_spans_as_the_old_search",
            "test_the_same_sentence_ends_and_sentences_as_the_old_splitter",
        ),
    ),
    "tests/response_level/test_loop.py": (
        "make test keeps the agent that corrects its answer on the second try; these are the loop's other endings",
        (
            "test_a_claim_the_checker_cannot_decide_stops_the_loop_at_once",
            "test_a_dead_checker_stops_the_loop_with_its_own_status",
            "test_an_agent_that_never_corrects_it_ends_the_loop_with_a_failure",
        ),
    ),
    "tests/response_level/test_real_model.py": (
        "check-response on the embedded model in process; make test keeps the embedded model's own tests "
        "(test_llama_cpp) and check-response against llama.cpp's server through the guard",
        (
            "test_check_response_on_the_embedded_model",
        ),
    ),
    "tests/run/test_bounded_reads.py": (
        "results.jsonl as a link to /dev/zero; the other hostile files run in make test",
        (
            "test_every_reader_of_results_jsonl_refuses_it_in_one_line[dev-zero]",
        ),
    ),
    "tests/run/test_build.py": (
        "each entry point building the index before it runs; make test keeps the demo command's build "
        "(test_builtin_index) and the eval of a method without RAG",
        (
            "test_eval",
            "test_eval_of_a_method_without_rag_opens_no_milvus[method2-True]",
            "test_mcp_server",
            "test_python_api",
            "test_serve_builds_the_full_text_index_before_it_listens_and_the_vectors_behind_it",
            "test_serve_on_a_folder_already_indexed_prints_no_indexing_line",
            "test_batch_run",
        ),
    ),
    "tests/run/test_named_inputs_bounded.py": (
        "make test keeps a device on standard input refused; these add pipes and named files",
        (
            "test_a_pipe_that_is_written_to_still_works",
            "test_named_input_files_are_refused_in_one_line",
        ),
    ),
    "tests/run/test_scoring_encoder.py": (
        "a default Tool-MAD verdict imports no torch (a subprocess run)",
        (
            "test_a_tool_mad_verdict_with_the_default_settings_never_imports_torch",
        ),
    ),
    "tests/scale/test_index_ray.py": (
        "index builds on Ray workers; make test keeps batches on Ray workers (test_pool) and this module's "
        "refusals",
        (
            "test_a_stopped_build_run_again_ends_with_every_passage_and_no_duplicate",
            "test_two_workers_write_every_passage_once",
            "test_a_batch_on_ray_workers_searches_what_an_index_build_on_ray_wrote",
        ),
    ),
    "tests/scale/test_index_ray_failures.py": (
        "failing index builds on Ray; make test keeps batches on Ray workers (test_pool)",
        (
            "test_a_bad_line_is_the_one_process_builds_line",
            "test_a_shard_that_kills_its_worker_stops_the_build_after_bounded_retries",
        ),
    ),
    "tests/scale/test_index_ray_quiet.py": (
        "a failed index build's output on Ray; make test keeps batches on Ray workers (test_pool)",
        (
            "test_a_failed_ray_build_prints_only_its_own_lines",
        ),
    ),
    "tests/scale/test_pool.py": (
        "make test keeps Ray's verdicts against the local executor's; these are the pool's other cases",
        (
            "test_a_worker_killed_mid_claim_loses_and_duplicates_nothing",
            "test_a_worker_that_cannot_start_says_why",
            "test_cli_batch_on_ray_with_the_real_indexes",
            "test_cli_eval_on_ray",
            "test_eval_on_ray_matches_local",
            "test_llm_base_urls_are_spread_over_the_workers",
            "test_resume_rules_hold_across_executors",
            "test_twenty_claims_on_two_workers_each_exactly_once",
        ),
    ),
    "tests/server/guard/test_guard_serve.py": (
        "the chat proxy started by serve's command line in a process of its own; make test keeps the chat proxy "
        "in process on every door (tests/guard/conformance, tests/server/guard) and serve's refusal of a bad "
        "upstream",
        (
            "test_serve_with_a_guard_upstream_answers_chat_completions",
        ),
    ),
    "tests/server/guard/test_guard_stream_ends.py": (
        "make test keeps serve's grace period with one hanging request; this is two",
        (
            "test_serve_stops_within_its_grace_period_while_a_request_hangs[2]",
        ),
    ),
    "tests/server/guard/test_openclaw.py": (
        "make test keeps the plug-in inside a real OpenClaw gateway (footnote, revision, refusal) and the "
        "provider way; these add every surface and Telegram",
        (
            "test_what_a_telegram_chat_shows_under_each_policy",
            "test_what_each_surface_shows_under_each_policy",
        ),
    ),
    "tests/server/guard/test_stand_in.py": (
        "make test keeps docs/ways/proxy.md's offline quick start run as the page prints it (the stand-in "
        "upstream, serve, the health wait and the curl) on a scripted checker; this runs the same lines on the "
        "offline model (minutes on 2 cores)",
        (
            "test_the_offline_quick_start_marks_the_false_sentence_on_the_offline_model",
        ),
    ),
    "tests/server/mcp/test_mcp_processes.py": (
        "MCP over HTTP with its key and two processes on one folder; make test keeps the stdio handshake and the "
        "SDK's default client",
        (
            "test_two_processes_on_one_data_folder_both_answer",
            "test_http_serves_with_the_key_and_refuses_without",
        ),
    ),
    "tests/server/ops/test_probes.py": (
        "serve's access log in a subprocess; the probes' other test runs in make test",
        (
            "test_serves_access_log_has_no_probe_lines_but_every_other_request",
        ),
    ),
    "tests/server/ops/test_serve_workers.py": (
        "make test keeps replicas sharing the cap through PostgreSQL; this is worker processes of one serve",
        (
            "test_two_worker_processes_share_the_cap_and_the_batches",
        ),
    ),
    "tests/server/ops/test_bounded_labels.py": (
        "a thousand made-up method and model names against a live server; make test keeps the spans, models, "
        "roles, tools and method labels named only from the fixed lists",
        (
            "test_a_thousand_made_up_methods_and_models_add_a_handful_of_series",
        ),
    ),
    "tests/server/ops/test_metrics.py": (
        "make test keeps Prometheus scraping the guard's metrics, the metrics key and a port of their own; this is "
        "serve refusing a port it cannot use, in a subprocess",
        (
            "test_serve_refuses_a_metrics_port_it_cannot_use_in_one_line",
        ),
    ),
    "tests/server/ops/test_overload.py": (
        "make test keeps a reply that goes out unchecked under pass, said why; this is the request refused at once "
        "when its check would pass its deadline",
        (
            "test_a_request_that_would_pass_its_deadline_is_refused_at_once",
        ),
    ),
    "tests/server/ops/test_overload_cpu.py": (
        "make test keeps the request shed at once on a service out of CPU; this is the same request checked when "
        "the lag bound is off",
        (
            "test_a_request_to_a_service_out_of_cpu_is_shed_at_once[0-200]",
        ),
    ),
    "tests/server/ops/test_overload_forecast.py": (
        "make test keeps a request refused past max_cpu_share and one passed unchecked under on_overload: pass, "
        "each while two processes spin; these are the same request checked with max_cpu_share unset or 0 (16 s "
        "of two spinning processes beside the suite's other workers)",
        (
            "test_without_max_cpu_share_the_same_request_is_checked",
        ),
    ),
    "tests/server/page/test_dpd_page.py": (
        "DPD's teams and referees drawn; make test keeps Tool-MAD drawn live (test_browser) and DPD's faces over "
        "MCP and Python",
        (
            "test_dpd_teams_and_referees_ballots_are_drawn",
        ),
    ),
    "tests/server/page/test_mermaid_page.py": (
        "MERMAID drawn live; make test keeps Tool-MAD and DPD drawn live",
        (
            "test_mermaid_is_drawn_live",
        ),
    ),
    "tests/server/page/test_page_address.py": (
        "more of the address bar; make test keeps a response check's link (test_page_share) and the fold of a "
        "check opened by its link",
        (
            "test_a_link_opened_without_its_key_says_a_check_waits_for_it",
            "test_a_response_and_a_comparison_are_at_their_links",
            "test_a_result_is_at_its_link_through_back_forward_and_reload",
            "test_compare_and_recent_checks_name_the_model_and_its_caution",
        ),
    ),
    "tests/server/page/test_page_compare_confusion.py": (
        "confusion matrices drawn; the results view's other tests run in make test",
        (
            "test_each_runs_confusion_matrix_is_drawn_as_the_file_holds_it",
        ),
    ),
    "tests/server/page/test_page_explains.py": (
        "make test keeps the verdict saying why with its quotes; these are the page's other explanations",
        (
            "test_a_replayed_trace_counts_the_steps_it_drew",
            "test_a_reworded_claim_is_marked_and_each_claim_shows_its_evidence",
            "test_a_server_without_keys_shows_no_key_box",
            "test_every_tab_fits_a_phone",
            "test_many_voters_wrap_as_a_grid_of_readable_cards",
            "test_methods_agree_in_a_sentence_and_a_verdict_downloads",
            "test_retries_are_shown_and_a_failure_offers_retry",
            "test_tavily_is_offered_only_with_its_key",
            "test_the_form_names_methods_in_words_and_keyboard_users_get_a_skip_link",
            "test_a_run_shows_its_clock_rounds_and_model_calls",
        ),
    ),
    "tests/server/page/test_page_factool_claims.py": (
        "FacTool's card titles; the page's method views run in make test",
        (
            "test_factools_cards_are_titled_with_their_claims",
        ),
    ),
    "tests/server/page/test_page_fold.py": (
        "make test keeps the form folding at 1280 px and a recent check opened; these add 390 px and responses",
        (
            "test_a_check_opened_from_recent_checks_folds_the_form[390]",
            "test_a_finished_claim_folds_the_form_and_one_click_opens_it[390]",
            "test_a_finished_response_and_comparison_fold_the_form",
        ),
    ),
    "tests/server/page/test_page_guard_honest.py": (
        "cited passages on the guard view; make test keeps a kept guard check drawn from its link and an injected "
        "instruction marked",
        (
            "test_cited_passages_and_the_text_the_spans_point_into_are_said",
        ),
    ),
    "tests/server/page/test_page_guard_next.py": (
        "checking the next part of a cut guard check; make test keeps a kept guard check drawn",
        (
            "test_a_cut_guard_check_names_its_model_and_checks_the_next_part",
        ),
    ),
    "tests/server/page/test_page_kept_calls.py": (
        "a reopened check's calls redrawn; make test keeps a kept guard check drawn from its link",
        (
            "test_a_reopened_check_draws_its_calls_as_they_were_live",
        ),
    ),
    "tests/server/page/test_page_keyboard.py": (
        "axe-core over every screen; make test keeps the keyboard path past a verdict",
        (
            "test_axe_finds_nothing_serious_on_any_screen",
        ),
    ),
    "tests/server/page/test_response_page_failures.py": (
        "a response check's claims whose model server died, failed then retried on the page; make test keeps the "
        "claim endpoint's input checks and the server's address kept from the caller, and the page's failed "
        "check in words (test_page_model_down)",
        (
            "test_claims_whose_model_server_died_fail_and_are_retried_alone",
        ),
    ),
    "tests/server/page/test_page_model_down.py": (
        "make test keeps a check that fails before any answer; this is a server down mid-way",
        (
            "test_a_model_server_that_is_down_fails_the_check_in_words",
        ),
    ),
    "tests/server/page/test_page_phone_width.py": (
        "phone widths of the compare and API views; make test keeps the live debate and the guard view",
        (
            "test_a_claim_holding_a_url_and_the_api_reference_fit_a_phone",
            "test_paired_files_compare_and_the_pickers_fit_a_phone",
        ),
    ),
    "tests/server/page/test_page_polish.py": (
        "compare files opened and the top bar at every width",
        (
            "test_compare_json_opens_with_every_figure_the_file_holds",
            "test_the_compare_tabs_download_reopens_side_by_side_and_other_json_is_named",
            "test_the_top_bar_fits_every_width_and_keeps_one_row_where_it_fits[with-key-box]",
            "test_the_comparison_figures_read_as_the_file_holds_them",
        ),
    ),
    "tests/server/page/test_page_reason.py": (
        "every method's reason in words; make test keeps the verdict saying why with its quotes "
        "(test_page_explains)",
        (
            "test_every_method_says_why_in_its_deciding_answers_words",
            "test_the_embedded_models_caution_stands_beside_its_label",
            "test_cited_apart_from_read_and_a_react_agent_repeats_nothing",
            "test_a_responses_claims_each_say_why",
        ),
    ),
    "tests/server/page/test_page_reload.py": (
        "more reloads; make test keeps the page's link, fold and share tests",
        (
            "test_a_comparison_reloaded_mid_run_keeps_its_methods_and_shows_its_cards",
            "test_a_draft_too_large_for_the_tab_keeps_the_form_and_says_so",
            "test_a_reload_mid_check_warns_keeps_the_form_and_offers_what_had_arrived",
            "test_a_response_reloaded_mid_check_shows_its_claims_so_far_or_runs_again",
            "test_back_while_a_check_runs_stays_on_it_and_says_why",
        ),
    ),
    "tests/server/page/test_page_results.py": (
        "the results table's figures, filters, sorting and keyboard; make test keeps the results viewer opening a "
        "debate (test_browser)",
        (
            "test_rows_open_by_keyboard_clear_of_the_sticky_header",
            "test_the_matrix_and_per_label_figures_are_the_harness_figures",
            "test_a_filter_that_leaves_nothing_says_so",
            "test_headers_sort_by_click_and_keyboard",
            "test_with_its_run_json_macro_f1_averages_over_the_dataset_labels",
        ),
    ),
    "tests/server/page/test_page_share.py": (
        "links to checks and comparisons; make test keeps a response check's link and a check opened by its link "
        "folding the form (test_page_fold)",
        (
            "test_a_link_shows_its_check_first_and_folds_the_form",
            "test_compared_methods_stand_side_by_side_each_with_its_own_settings",
            "test_a_checks_link_opens_it_in_a_fresh_browser",
        ),
    ),
    "tests/server/page/test_page_small.py": (
        "small polish of the form and bars; make test keeps the module's other tests",
        (
            "test_a_long_claim_is_not_cut_and_an_empty_file_is_named",
            "test_a_replayed_trace_says_why_in_the_runs_own_words",
            "test_a_score_that_could_not_be_computed_is_an_empty_outlined_bar",
            "test_a_third_agent_is_added_runs_and_is_taken_away",
            "test_evaluation_options_stay_out_and_response_options_show_only_for_a_response",
        ),
    ),
    "tests/server/page/test_page_statistics.py": (
        "the paired view's statistics against compare's; compare's statistics tests run in make test",
        (
            "test_the_paired_view_computes_what_compare_writes[n40]",
            "test_the_small_runs_are_what_the_test_means_them_to_be",
            "test_the_paired_view_computes_what_compare_writes",
        ),
    ),
    "tests/server/page/test_page_transcript.py": (
        "each turn's model calls and a replayed trace's text; make test keeps a check's calls drawn on a kept "
        "guard check (test_page_guard)",
        (
            "test_each_turn_folds_its_model_calls_with_their_prompt_and_reply",
            "test_a_replayed_trace_shows_the_text_it_carries",
            "test_a_checked_claim_of_a_response_opens_with_its_calls",
        ),
    ),
    "tests/server/page/test_page_voices.py": (
        "many voices tallied on a phone; DPD's page runs in make test",
        (
            "test_many_voices_are_tallied_tabled_and_named_on_a_phone",
        ),
    ),
    "tests/server/page/test_response_page.py": (
        "make test keeps a response checked claim by claim; these add saved checks, bad input and Stop",
        (
            "test_a_finished_check_is_remembered_and_a_saved_one_opens_in_the_results_viewer",
            "test_bad_input_and_a_broken_stream_keep_what_was_shown",
            "test_stop_acts_on_the_visible_modes_run_only",
            "test_a_panel_method_shows_each_claims_confidence",
        ),
    ),
    "tests/server/page/test_response_page_unchecked.py": (
        "make test keeps unchecked sentences marked with why; this is a long answer's count",
        (
            "test_a_long_answer_says_how_many_sentences_were_checked",
        ),
    ),
    "tests/server/state/test_shared_state.py": (
        "make test keeps the default SQLite state and PostgreSQL's other tests; these are the same cases on "
        "PostgreSQL",
        (
            "test_claims_of_a_killed_process_are_run_by_another[postgresql]",
            "test_two_processes_share_a_batch_and_run_each_claim_once[postgresql]",
        ),
    ),
    "tests/server/test_dpd_faces.py": (
        "DPD's verify over MCP; make test keeps MCP's verify over stdio (test_mcp_server_process) and DPD's other "
        "faces",
        (
            "test_mcp_verify_claim_with_dpd",
        ),
    ),
    "tests/server/test_mermaid_faces.py": (
        "MERMAID's verify over MCP and from Python; make test keeps MCP's verify with Tool-MAD and DPD and "
        "MERMAID's golden record",
        (
            "test_mcp_verify_claim",
            "test_python_api",
        ),
    ),
    "tests/server/test_response_claim_kept.py": (
        "a retried claim on a check's link and in Recent checks; make test keeps a recent check opened "
        "(test_page_fold)",
        (
            "test_a_retried_claim_shows_on_the_checks_link_and_in_recent_checks",
        ),
    ),
    "tests/test_current_folder.py": (
        "runs from the repository's folder (serve's workers, Ray's, MERMAID's tool servers); make test keeps "
        "setup running the real pip there",
        (
            "test_ray_workers_import_our_package",
            "test_serve_with_worker_processes",
            "test_verify_with_mermaid_starts_our_tool_servers",
        ),
    ),
    "tests/test_documented_lines.py": (
        "documented MERMAID, compare and usage commands that run whole methods (verify --json is the demo's claim "
        "with the offline model, which make test runs through make demo's command; the researchers' page repeats "
        "compare's four-method eval and, as the reproduce page does, README's DPD dry run; DPD's page's second "
        "verify is its first with other transition settings); the other documented lines run in make test",
        (
            "test_documented[docs/compare.md:37]",
            "test_documented[docs/compare.md:55]",
            "test_documented[docs/compare.md:9]",
            "test_documented[docs/methods/dpd.md:10]",
            "test_documented[docs/methods/mermaid.md:10]",
            "test_documented[docs/methods/mermaid.md:13]",
            "test_documented[docs/methods/mermaid.md:8]",
            "test_documented[docs/methods/mermaid.md:9]",
            "test_documented[docs/reproduce.md:26]",
            "test_documented[docs/usage.md:10]",
            "test_documented[docs/usage.md:11]",
            "test_documented[docs/usage.md:12]",
            "test_documented[docs/start/researchers.md:23]",
            "test_documented[docs/start/researchers.md:33]",
        ),
    ),
}


def is_full_only(nodeid: str) -> bool:
    """Whether the test ``nodeid`` (``path::name[param]``, as pytest writes it) is left to ``make test-all``."""
    module, _, name = nodeid.partition("::")
    entry = FULL_ONLY.get(module)
    if entry is None:
        return False
    return any(name == listed or (name.startswith(listed + "[") and "[" not in listed) for listed in entry[1])
