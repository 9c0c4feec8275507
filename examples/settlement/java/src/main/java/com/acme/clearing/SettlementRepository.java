package com.acme.clearing;

import java.util.List;
import org.springframework.data.repository.CrudRepository;

/**
 * Spring Data writes the implementation at run time; the query comes from the
 * method's name, so renaming a property of SettlementRecord breaks it.
 */
public interface SettlementRepository extends CrudRepository<SettlementRecord, String> {
    List<SettlementRecord> findByStatusAndRailOrderByCreatedAtDesc(String status, String rail);

    long countByStatus(String status);
}
