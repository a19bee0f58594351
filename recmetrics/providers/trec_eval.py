"""trec_eval, the reference of TREC evaluation (read and run through pytrec_eval).

Sources: usnistgov/trec_eval (``m_*.c``: one file per measure;
``form_res_rels.c``: the order of tied documents).
"""

from ._provider import Provider

PROVIDER = Provider(
    name="trec_eval",
    order=10,
    library="trec_eval (through pytrec_eval)",
    version="pytrec-eval-terrier 0.5.11",
    checked="run (tests)",
    ties="document id in decreasing string order (our 'trec_eval' = higher column first "
    "with zero-padded ids)",
    notes="scores compared in single precision (trec_eval's 2020 tag v9.0.8, which "
    "pytrec_eval embeds; its 2023 tag trec_eval-9.0.8 and 10.0 read doubles); binary "
    "measures count grade >= 1 as "
    "relevant; only the queries in both qrels and run are evaluated (without -c; "
    "users='truth' is trec_eval -c); one judged with no relevant item scores 0",
    keywords={
        "ties": "trec_eval",
        "no_relevant": "zero",
        "ap_denominator": "relevant",
        "score_dtype": "float32",
        # queries in both qrels and run (trec_eval without -c)
        "users": "both",
    },
    metrics={
        "precision": "k",  # P_k
        "recall": "k",  # recall_k
        "hr": "k",  # success_k
        "rprec": "none",  # Rprec
        "mrr": "none",  # recip_rank
        "map": "both",  # map, map_cut_k
        "ndcg": "both",  # ndcg, ndcg_cut_k
        "bpref": "none",  # bpref
        "set_precision": "none",  # set_P
        "set_recall": "none",  # set_recall
        "set_f": "none",  # set_F (= set_F.1.0)
        "set_relative_precision": "none",  # set_relative_P
        "relative_precision": "k",  # relative_P_k
        "iprec_at_recall_0.00": "none",
        "iprec_at_recall_0.10": "none",
        "iprec_at_recall_0.20": "none",
        "iprec_at_recall_0.30": "none",
        "iprec_at_recall_0.40": "none",
        "iprec_at_recall_0.50": "none",
        "iprec_at_recall_0.60": "none",
        "iprec_at_recall_0.70": "none",
        "iprec_at_recall_0.80": "none",
        "iprec_at_recall_0.90": "none",
        "iprec_at_recall_1.00": "none",
        "precision_11pt": "none",  # 11pt_avg
        # issue 26: summaries that are not means (sum, geometric), set_map, Rprec_mult, infAP
        "gm_map": "none",  # gm_map
        "gm_bpref": "none",  # gm_bpref
        "num_q": "none",
        "num_ret": "none",
        "num_rel": "none",
        "num_rel_ret": "none",
        "num_nonrel_judged_ret": "none",
        "set_map": "none",
        "rprec_mult_0.20": "none",  # Rprec_mult_0.20
        "rprec_mult_0.40": "none",
        "rprec_mult_0.60": "none",
        "rprec_mult_0.80": "none",
        "rprec_mult_1.00": "none",
        "rprec_mult_1.20": "none",
        "rprec_mult_1.40": "none",
        "rprec_mult_1.60": "none",
        "rprec_mult_1.80": "none",
        "rprec_mult_2.00": "none",
        "infap": "none",  # infAP
        "rndcg": "none",  # Rndcg (gain maps: gain_values)
        "bin_g": "none",  # binG
        "utility": "none",  # utility (its parameters: keywords)
        "ndcg_rel": "none",  # ndcg_rel
        "trec_g": "none",  # G
        # judgment groups (-R qrels_jg: a truth frame's column 'group'); one group: map, P, ...
        "map_avgjg": "none",  # map_avgjg
        "p_avgjg": "k",  # P_avgjg_k
        **{f"rprec_mult_avgjg_{x / 10:.2f}": "none" for x in range(2, 21, 2)},
    },
    sources={
        "precision": "m_P.c (P_k)",
        "recall": "m_recall.c (recall_k)",
        "map": "m_map.c (map), m_map_cut.c (map_cut_k)",
        "ndcg": "m_ndcg.c (ndcg), m_ndcg_cut.c (ndcg_cut_k)",
        "mrr": "m_recip_rank.c (recip_rank)",
        "hr": "m_success.c (success_k)",
        "rprec": "m_Rprec.c (Rprec)",
        "bpref": "m_bpref.c (bpref)",
        "set_precision": "m_set_P.c (set_P)",
        "set_recall": "m_set_recall.c (set_recall)",
        "set_f": "m_set_F.c (set_F; its parameter x is our beta squared)",
        "set_relative_precision": "m_set_rel_P.c (set_relative_P)",
        "relative_precision": "m_rel_P.c (relative_P_k)",
        "iprec_at_recall_0.00": "m_iprec_at_recall.c (iprec_at_recall_0.00; 9.0.8 rounding)",
        "iprec_at_recall_0.10": "m_iprec_at_recall.c (iprec_at_recall_0.10; 9.0.8 rounding)",
        "iprec_at_recall_0.20": "m_iprec_at_recall.c (iprec_at_recall_0.20; 9.0.8 rounding)",
        "iprec_at_recall_0.30": "m_iprec_at_recall.c (iprec_at_recall_0.30; 9.0.8 rounding)",
        "iprec_at_recall_0.40": "m_iprec_at_recall.c (iprec_at_recall_0.40; 9.0.8 rounding)",
        "iprec_at_recall_0.50": "m_iprec_at_recall.c (iprec_at_recall_0.50; 9.0.8 rounding)",
        "iprec_at_recall_0.60": "m_iprec_at_recall.c (iprec_at_recall_0.60; 9.0.8 rounding)",
        "iprec_at_recall_0.70": "m_iprec_at_recall.c (iprec_at_recall_0.70; 9.0.8 rounding)",
        "iprec_at_recall_0.80": "m_iprec_at_recall.c (iprec_at_recall_0.80; 9.0.8 rounding)",
        "iprec_at_recall_0.90": "m_iprec_at_recall.c (iprec_at_recall_0.90; 9.0.8 rounding)",
        "iprec_at_recall_1.00": "m_iprec_at_recall.c (iprec_at_recall_1.00; 9.0.8 rounding)",
        "precision_11pt": "m_11pt_avg.c (11pt_avg)",
        "ties": "form_res_rels.c: comp_sim_docno",
        # issue 26
        "gm_map": "m_gm_map.c (gm_map: log(MAX(ap, MIN_GEO_MEAN)) per topic), "
        "meas_avg.c: te_calc_avg_meas_s_gm (exp of the mean)",
        "gm_bpref": "m_gm_bpref.c (gm_bpref), meas_avg.c: te_calc_avg_meas_s_gm",
        "num_q": "m_num_q.c (num_q: te_calc_avg_num_q)",
        "num_ret": "m_num_ret.c (num_ret: summed, te_calc_avg_meas_empty)",
        "num_rel": "m_num_rel.c (num_rel: summed, te_calc_avg_num_rel)",
        "num_rel_ret": "m_num_rel_ret.c (num_rel_ret: summed)",
        "num_nonrel_judged_ret": "m_num_nonrel_judged_ret.c (num_nonrel_judged_ret: summed)",
        "set_map": "m_set_map.c (set_map)",
        **{
            f"rprec_mult_{x / 10:.2f}": f"m_Rprec_mult.c (Rprec_mult_{x / 10:.2f})"
            for x in range(2, 21, 2)
        },
        "infap": "m_infap.c (infAP; a negative qrels grade: pooled but unjudged)",
        "rndcg": "m_Rndcg.c (Rndcg; gain maps: gain_init.c)",
        "bin_g": "m_binG.c (binG)",
        "utility": "m_utility.c (utility.p1,p2,p3,p4; -N is n_docs)",
        "ndcg_rel": "m_ndcg_rel.c (ndcg_rel; gain maps: gain_init.c)",
        "trec_g": "m_G.c (G; gain maps: gain_init.c)",
        "map_avgjg": "m_map_avgjg.c (map_avgjg; groups: form_res_rels_jg.c, get_qrels_jg.c)",
        "p_avgjg": "m_P_avgjg.c (P_avgjg_k)",
        **{
            f"rprec_mult_avgjg_{x}": f"m_Rprec_mult_avgjg.c (Rprec_mult_avgjg_{x})"
            for x in (f"{m / 10:.2f}" for m in range(2, 21, 2))
        },
    },
)
