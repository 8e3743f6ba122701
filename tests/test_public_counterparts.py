"""No rule that only the hidden graders know: every hidden grader test (autograder/graders/aN_*/
test_*.py) has at least one public test (solutions/aN_*/test_*.py, released to students) that
checks the same behaviour on fixed inputs, so a student learns each rule before the grade.

The table is kept by hand: a new grader test fails here until someone names its public
counterpart, or writes one. A grader test with no counterpart is listed under MISSING with
what it checks, never mapped to a public test that does not check it.
"""

import ast

from helpers import ROOT, SOLUTIONS

GRADERS = ROOT / "autograder" / "graders"

# grader "file::test" -> public "file::test"s of the same assignment that check that behaviour.
COUNTERPARTS: dict[str, dict[str, list[str]]] = {
    "a1_attention": {
        "test_attention.py::test_course_table": [
            "test_attention.py::test_masked_self_attention_reproduces_course_table",
            "test_attention.py::test_masked_self_attention_works_for_any_length"],
        "test_attention.py::test_masked_self_attention_random": [
            "test_attention.py::test_masked_self_attention_works_for_any_length"],
        "test_attention.py::test_random_shapes": ["test_attention.py::test_output_and_weight_shapes",
                                                  "test_attention.py::test_scores_are_scaled_by_sqrt_d_k",
                                                  "test_attention.py::test_d_k_is_the_last_dim_also_with_a_batch"],
        "test_attention.py::test_float64_stays_float64": [
            "test_attention.py::test_float64_inputs_give_float64_output_and_weights"],
        "test_attention.py::test_rows_sum_to_one_for_large_scores": [
            "test_attention.py::test_weights_rows_sum_to_one",
            "test_attention.py::test_rows_of_very_different_scores_each_sum_to_one"],
        "test_attention.py::test_padding_mask_gives_zero_weight": [
            "test_attention.py::test_masked_keys_get_zero_weight",
            "test_attention.py::test_a_batch_padding_mask_hides_each_rows_own_keys"],
        "test_attention.py::test_square_mask_broadcasts": ["test_attention.py::test_masked_keys_get_zero_weight"],
        "test_attention.py::test_fully_masked_query": [
            "test_attention.py::test_fully_masked_query_gives_zeros_not_nan"],
        "test_attention.py::test_gradients": ["test_attention.py::test_gradients_reach_q_k_and_v"],
        "test_masks.py::test_causal_mask": ["test_masks.py::test_causal_mask_is_lower_triangular"],
        "test_masks.py::test_padding_mask": ["test_masks.py::test_padding_mask_shape_and_values",
                                             "test_masks.py::test_padding_mask_uses_the_given_pad_id",
                                             "test_masks.py::test_padding_mask_hides_pads_wherever_they_are"],
        "test_masks.py::test_target_mask": ["test_masks.py::test_target_mask_combines_padding_and_causality",
                                            "test_masks.py::test_target_mask_uses_the_given_pad_id"],
    },
    "a2_layernorm": {
        "test_layernorm.py::test_course_vectors": ["test_layernorm.py::test_course_vectors"],
        "test_layernorm.py::test_parameters": ["test_layernorm.py::test_parameters_start_at_ones_and_zeros"],
        "test_layernorm.py::test_matches_torch_last_dim": ["test_layernorm.py::test_matches_torch_layernorm",
                                                           "test_layernorm.py::test_weight_scales_then_bias_shifts",
                                                           "test_layernorm.py::test_a_single_vector_without_a_batch_axis"],
        "test_layernorm.py::test_matches_torch_tuple_shape": [
            "test_layernorm.py::test_normalises_over_every_dimension_of_a_tuple_shape"],
        "test_layernorm.py::test_biased_variance_and_eps": [
            "test_layernorm.py::test_eps_is_the_argument_and_goes_inside_the_square_root",
            "test_layernorm.py::test_matches_torch_layernorm"],
        "test_layernorm.py::test_gradients": ["test_layernorm.py::test_gradients_match_torch_layernorm",
                                              "test_layernorm.py::test_float64_input_gives_float64_output"],
    },
    "a3_blocks": {
        "test_feedforward.py::test_parameter_count": ["test_feedforward.py::test_parameter_count"],
        "test_feedforward.py::test_output": ["test_feedforward.py::test_forward_is_linear2_of_relu_of_linear1",
                                             "test_feedforward.py::test_positions_are_independent"],
        "test_feedforward.py::test_gradients": ["test_feedforward.py::test_backward_works_in_training_mode"],
        "test_feedforward.py::test_dropout_is_active_in_training": [
            "test_feedforward.py::test_dropout_acts_on_the_hidden_layer_in_training_only"],
        "test_multihead.py::test_parameter_count": ["test_multihead.py::test_parameter_count"],
        "test_multihead.py::test_self_attention_matches_torch": [
            "test_multihead.py::test_cross_attention_matches_torch_with_the_same_weights",
            "test_multihead.py::test_a_square_causal_mask_matches_torch"],
        "test_multihead.py::test_cross_attention_with_padding": [
            "test_multihead.py::test_cross_attention_matches_torch_with_the_same_weights",
            "test_multihead.py::test_padding_mask_hides_keys",
            "test_multihead.py::test_attention_dropout_only_in_training"],
        "test_multihead.py::test_causal_mask": ["test_multihead.py::test_a_square_causal_mask_matches_torch"],
        "test_multihead.py::test_heads_are_independent": [
            "test_multihead.py::test_cross_attention_matches_torch_with_the_same_weights"],  # per-head weights
        "test_multihead.py::test_indivisible_sizes_raise_value_error": [
            "test_multihead.py::test_indivisible_sizes_are_a_clear_error"],
        "test_positional.py::test_course_table": ["test_positional.py::test_course_table"],
        "test_positional.py::test_random_table": ["test_positional.py::test_far_positions_follow_the_formula",
                                                  "test_positional.py::test_course_table"],
        "test_positional.py::test_forward_adds_positions": ["test_positional.py::test_forward_adds_the_first_rows",
                                                            "test_positional.py::test_the_gradient_reaches_x"],
        "test_positional.py::test_no_position_info_lost_at_long_range": [
            "test_positional.py::test_far_positions_follow_the_formula"],
    },
    "a4_transformer": {
        "test_layers.py::test_encoder_layer_post_norm": [
            "test_layers.py::test_encoder_layer_follows_the_paper_sublayer_by_sublayer",
            "test_layers.py::test_dropout_spares_the_residual_stream",
            "test_layers.py::test_dropout_acts_on_each_sublayer_output"],
        "test_layers.py::test_encoder_layer_pre_norm": [
            "test_layers.py::test_encoder_layer_follows_the_paper_sublayer_by_sublayer",
            "test_layers.py::test_dropout_spares_the_residual_stream"],
        "test_layers.py::test_decoder_layer_post_norm": [
            "test_layers.py::test_decoder_layer_follows_the_paper_sublayer_by_sublayer",
            "test_layers.py::test_decoder_layer_reads_memory_only_where_src_mask_allows",
            "test_layers.py::test_dropout_acts_on_each_sublayer_output"],
        "test_layers.py::test_decoder_layer_pre_norm": [
            "test_layers.py::test_decoder_layer_follows_the_paper_sublayer_by_sublayer",
            "test_layers.py::test_dropout_spares_the_residual_stream"],
        "test_layers.py::test_decoder_layer_is_causal": ["test_layers.py::test_decoder_layer_is_causal"],
        "test_transformer.py::test_forward_post_norm": [
            "test_transformer.py::test_post_norm_stacks_end_without_a_final_norm",
            "test_transformer.py::test_embed_scales_by_sqrt_d_model_then_adds_positions"],
        "test_transformer.py::test_forward_pre_norm": [
            "test_transformer.py::test_encode_runs_the_source_through_every_layer_and_the_final_norm",
            "test_transformer.py::test_decode_returns_the_logits_of_the_decoder_stack"],
        "test_transformer.py::test_tied_weights": ["test_transformer.py::test_tied_weights_share_one_matrix"],
        "test_transformer.py::test_encode_and_decode": [
            "test_transformer.py::test_encode_then_decode_equals_forward",
            "test_transformer.py::test_embed_applies_dropout_in_training",
            "test_transformer.py::test_embedding_dropout_runs_once_per_stack"],
        "test_transformer.py::test_future_target_tokens_are_invisible": [
            "test_transformer.py::test_decode_returns_the_logits_of_the_decoder_stack"],  # with target_mask(tgt)
        "test_transformer.py::test_source_padding_is_ignored": [
            "test_transformer.py::test_padding_follows_config_pad_id"],
    },
    "a5_decoding": {
        "test_decoding.py::test_greedy_decode": ["test_decoding.py::test_greedy_stops_at_eos",
                                                 "test_decoding.py::test_rows_finish_at_their_own_step",
                                                 "test_decoding.py::test_rows_are_padded_to_the_longest_row"],
        "test_decoding.py::test_padding_uses_the_given_pad_id": [
            "test_decoding.py::test_finished_rows_are_filled_with_the_given_pad_id"],
        "test_decoding.py::test_greedy_respects_max_len": [
            "test_decoding.py::test_max_len_is_respected_and_finished_rows_are_padded"],
        "test_decoding.py::test_sample_decode": [
            "test_decoding.py::test_sample_decode_is_reproducible_with_a_generator",
            "test_decoding.py::test_sampling_with_top_k_1_is_greedy",
            "test_decoding.py::test_sampled_decoding_divides_by_the_temperature_once"],
        "test_decoding.py::test_beam_of_one_is_greedy": ["test_decoding.py::test_beam_of_one_is_greedy"],
        "test_decoding.py::test_wide_beam_finds_the_best_output": [
            "test_decoding.py::test_beam_search_scores_log_probability_over_the_length_penalty",
            "test_decoding.py::test_beam_search_finds_the_better_sentence"],
        "test_decoding.py::test_batched_beam_equals_one_by_one": [
            "test_decoding.py::test_beam_search_rows_finish_at_their_own_step",
            "test_decoding.py::test_beam_search_keeps_each_live_hypothesis_score",
            "test_decoding.py::test_beam_search_goes_on_while_a_hypothesis_is_alive",
            "test_decoding.py::test_beam_search_applies_the_length_penalty_once",
            "test_decoding.py::test_beam_search_normalises_the_logits",
            "test_decoding.py::test_beam_search_adds_log_probabilities",
            "test_decoding.py::test_beam_search_stops_a_hypothesis_at_its_eos"],
        "test_sampling.py::test_temperature": [
            "test_sampling.py::test_draws_follow_softmax_of_logits_over_temperature"],
        "test_sampling.py::test_top_k": ["test_sampling.py::test_top_k_never_leaves_the_k_best",
                                         "test_sampling.py::test_top_k_applies_to_a_batch_smaller_than_k"],
        "test_sampling.py::test_top_p": ["test_sampling.py::test_top_p_keeps_the_smallest_set_reaching_p",
                                         "test_sampling.py::test_top_p_keeps_tokens_in_their_places"],
        "test_sampling.py::test_temperature_top_k_and_top_p_together": [
            "test_sampling.py::test_top_k_filters_first_then_top_p_on_what_remains",
            "test_sampling.py::test_temperature_applies_with_top_k"],
        "test_sampling.py::test_rows_are_independent": ["test_sampling.py::test_each_row_is_filtered_by_its_own_top_k",
                                                        "test_sampling.py::test_a_batch_of_one_gives_one_draw_of_shape_1"],
        "test_sampling.py::test_generator_makes_draws_reproducible": [
            "test_sampling.py::test_same_generator_seed_same_draws"],
        "test_sampling.py::test_greedy_limits": ["test_sampling.py::test_greedy_cases_take_the_argmax"],
        "test_sampling.py::test_invalid_arguments": [
            "test_sampling.py::test_invalid_arguments_raise_value_error",
            "test_sampling.py::test_valid_arguments_are_accepted_and_invalid_ones_refused_first"],
    },
    "a6_translator": {
        "test_batching.py::test_dataset_items": ["test_batching.py::test_items_frame_the_target_only",
                                                 "test_batching.py::test_max_len_truncates_and_keeps_eos"],
        "test_batching.py::test_collate_pads_on_the_right": ["test_batching.py::test_collate_pads_on_the_right",
                                                             "test_batching.py::test_loader_gives_padded_batches"],
        "test_checkpoint.py::test_round_trip": ["test_checkpoint.py::test_round_trip_gives_identical_outputs"],
        "test_checkpoint.py::test_other_sizes": ["test_checkpoint.py::test_config_is_restored_for_other_sizes"],
        "test_checkpoint.py::test_loads_a_file_saved_on_a_gpu": [
            "test_checkpoint.py::test_a_file_saved_on_a_gpu_loads_on_the_cpu"],
        "test_checkpoint.py::test_refuses_a_file_that_runs_code": [
            "test_checkpoint.py::test_a_file_holding_other_objects_is_refused"],
        "test_checkpoint.py::test_refuses_weights_that_do_not_fit": [
            "test_checkpoint.py::test_weights_that_do_not_fit_are_an_error"],
        "test_corpus.py::test_read_pairs_every_form": ["test_corpus.py::test_read_pairs_every_form",
                                                       "test_corpus.py::test_read_pairs_first_line_is_data"],
        "test_corpus.py::test_drop_long_pairs": ["test_corpus.py::test_drop_long_pairs"],
        "test_corpus.py::test_split_by_source_groups": [
            "test_corpus.py::test_split_keeps_each_english_sentence_on_one_side"],
        "test_corpus.py::test_split_by_source_seeded": ["test_corpus.py::test_split_keeps_order_and_is_reproducible"],
        "test_end_to_end.py::test_learns_a_toy_translation": [
            "test_lecture002.py::test_learns_lecture_002s_sixteen_pairs"],  # the same pipeline, lecture 002's data
        "test_lecture002.py::test_learns_lecture_002s_sixteen_pairs": [
            "test_lecture002.py::test_learns_lecture_002s_sixteen_pairs"],
        "test_preprocessing.py::test_clean_text_random_strings": [
            "test_preprocessing.py::test_course_examples",
            "test_preprocessing.py::test_decomposed_accents_are_composed",
            "test_preprocessing.py::test_tabs_and_newlines_separate_words",
            "test_preprocessing.py::test_nothing_left_is_the_empty_string"],
        "test_training.py::test_sequence_loss": [
            "test_training.py::test_sequence_loss_ignores_pad",
            "test_training.py::test_label_smoothing_mixes_in_the_mean_over_classes",
            "test_training.py::test_uniform_logits_cost_log_v_even_with_smoothing",
            "test_training.py::test_sequence_loss_ignores_the_pad_id_it_is_given"],
        "test_training.py::test_train_step": [
            "test_training.py::test_train_step_shifts_the_target_and_updates",
            "test_training.py::test_train_step_passes_label_smoothing_on",
            "test_training.py::test_train_step_starts_from_clean_gradients",
            "test_training.py::test_train_step_clips_the_gradient_norm_before_the_update"],
        "test_training.py::test_evaluate": [
            "test_training.py::test_evaluate_returns_a_python_float",
            "test_training.py::test_evaluate_weights_tokens_and_restores_the_mode",
            "test_training.py::test_evaluate_switches_dropout_off",
            "test_training.py::test_evaluate_runs_without_gradients_and_restores_every_submodule",
            "test_training.py::test_evaluate_raises_when_every_label_is_pad"],
        "test_training.py::test_fit": ["test_training.py::test_fit_lowers_the_loss",
                                       "test_training.py::test_fit_is_train_step_on_every_batch_of_every_epoch",
                                       "test_training.py::test_fit_goes_through_the_loader_once_per_epoch"],
        "test_training.py::test_fit_and_validate": [
            "test_training.py::test_fit_and_validate_returns_two_curves_of_one_float_per_epoch",
            "test_training.py::test_fit_and_validate_trains_like_fit_and_evaluates_after_every_epoch",
            "test_training.py::test_fit_and_validate_trains_in_training_mode_and_validates_in_eval_mode",
            "test_training.py::test_fit_and_validate_passes_pad_id_on_to_evaluate"],
        "test_translation.py::test_translate_matches_the_reference": [
            "test_translation.py::test_translates_a_batch_in_order",
            "test_translation.py::test_long_sources_are_truncated_to_the_model",
            "test_translation.py::test_strategy_and_options_reach_decode",
            "test_translation.py::test_max_len_below_the_model_s_limits_the_output"],
        "test_vocab.py::test_specials_then_words": ["test_vocab.py::test_specials_come_first"],
        "test_vocab.py::test_build_counts_and_orders": ["test_vocab.py::test_build_orders_by_count_then_alphabet",
                                                        "test_vocab.py::test_build_counts_every_occurrence",
                                                        "test_vocab.py::test_build_adds_no_empty_word"],
        "test_vocab.py::test_encode_and_decode": ["test_vocab.py::test_encode_and_decode",
                                                  "test_vocab.py::test_decode_rejects_ids_outside_the_vocabulary"],
    },
}

# grader "file::test" -> what it checks that no public test does (empty: none known).
MISSING: dict[str, dict[str, str]] = {}


def _tests(folder) -> set[str]:
    """'file::test' of every test function of ``folder``'s test_*.py."""
    return {f"{path.name}::{node.name}" for path in sorted(folder.glob("test_*.py"))
            for node in ast.parse(path.read_text(encoding="utf-8")).body
            if isinstance(node, ast.FunctionDef) and node.name.startswith("test_")}


def test_every_grader_test_is_in_the_table():
    """Is every hidden grader test of every assignment in the table, and nothing else?"""
    assignments = sorted(p.name for p in GRADERS.glob("a*_*") if p.is_dir())
    assert assignments == sorted(COUNTERPARTS) and len(assignments) == 6
    for assignment in assignments:
        graders = _tests(GRADERS / assignment)
        listed = set(COUNTERPARTS[assignment]) | set(MISSING.get(assignment, {}))
        assert graders == listed, (assignment, "not in the table:", sorted(graders - listed),
                                   "in the table, not a grader test:", sorted(listed - graders))


def test_every_counterpart_is_a_public_test_of_that_assignment():
    """Does every public test the table names exist in that assignment's solutions/ tests
    (and so in the student's assignments/ after sync)?"""
    for assignment, table in COUNTERPARTS.items():
        public = _tests(SOLUTIONS / assignment)
        for grader, counterparts in table.items():
            assert counterparts, (assignment, grader, "list it in MISSING instead")
            unknown = [c for c in counterparts if c not in public]
            assert not unknown, (assignment, grader, unknown)


def test_no_grader_rule_lacks_a_public_counterpart():
    """Does every hidden grader test have a public counterpart (MISSING is empty)?"""
    assert not {a: t for a, t in MISSING.items() if t}, MISSING
